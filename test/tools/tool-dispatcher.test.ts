import { describe, it, expect } from 'vitest';
import * as z from 'zod/mini';
import { z as zc } from 'zod';
import { AgentError } from '../../src/errors.js';
import { HookRegistry } from '../../src/hooks/hook-registry.js';
import { defineTool } from '../../src/ports/tool-handler.js';
import type { ToolHandler } from '../../src/ports/tool-handler.js';
import { HookResult } from '../../src/types.js';
import type { AgentEventPayload } from '../../src/types.js';
import { ToolDispatcher } from '../../src/tools/tool-dispatcher.js';
import type { ToolBatchContext, ToolCallRequest } from '../../src/tools/tool-dispatcher.js';
import { TOOL_CALL_SKIPPED_TEXT } from '../../src/prompt/tool-result-texts.js';
import { MAX_TOOL_OUTPUT_BYTES, TRUNCATION_MARKER } from '../../src/tools/truncate.js';
import { deferred, meeting, promiseJobsRun } from '../support/waits.js';

/** A batch context that records events and reported errors. */
function recordingContext(cancel = new AbortController()) {
  const events: AgentEventPayload[] = [];
  const errors: AgentError[] = [];
  const ctx: ToolBatchContext = {
    sessionId: 'session-1',
    turnId: 'turn-1',
    cancelSignal: cancel.signal,
    emit: (payload) => events.push(payload),
    reportError: (error) => errors.push(error),
  };
  return { ctx, events, errors, cancel };
}

const call = (callId: string, toolName: string, args: unknown = {}): ToolCallRequest => ({
  callId,
  toolName,
  arguments: typeof args === 'string' ? args : JSON.stringify(args),
});

/** A tool that logs `start:<id>` and `end:<id>` around `wait()` (default: none), to show overlap or order. */
function loggingTool(
  name: string,
  log: string[],
  options: { mutating?: boolean; wait?: () => Promise<unknown> } = {},
) {
  return defineTool({
    name,
    description: `logs ${name}`,
    parameters: z.object({ id: z.string() }),
    mutating: options.mutating ?? false,
    execute: async ({ arguments: { id } }) => {
      log.push(`start:${id}`);
      await options.wait?.();
      log.push(`end:${id}`);
      return `done ${id}`;
    },
  });
}

/** A tool without parameters or description, running `execute`. */
function noArgsTool(name: string, execute: ToolHandler['execute'], fields: Partial<ToolHandler> = {}) {
  return defineTool({ name, description: '', parameters: z.object({}), execute, ...fields });
}

/** Resolves once `signal` has aborted. */
const aborted = (signal: AbortSignal) =>
  new Promise<void>((resolve) =>
    signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve(), { once: true }),
  );

function dispatcher(tools: ToolHandler[], options: { timeoutMs?: number; hooks?: HookRegistry } = {}) {
  return new ToolDispatcher({
    tools,
    timeoutMs: options.timeoutMs ?? 5_000,
    hooks: options.hooks ?? new HookRegistry({ timeoutMs: 5_000 }),
  });
}

const weather = defineTool({
  name: 'get_weather',
  description: 'Weather of a city',
  parameters: z.object({
    city: z.string(),
    options: z.optional(z.object({ units: z.enum(['c', 'f']) })),
    days: z._default(z.number(), 1),
  }),
  execute: async ({ arguments: args }) => JSON.stringify(args),
});

describe('ToolDispatcher: batches', () => {
  it('runs a batch of read-only tools concurrently (their executions overlap)', async () => {
    const log: string[] = [];
    // Each call ends only once both have started: one after the other, they never would.
    const meet = meeting(2);
    const tools = dispatcher([
      loggingTool('read_a', log, { wait: meet }),
      loggingTool('read_b', log, { wait: meet }),
    ]);
    const { ctx } = recordingContext();
    await tools.runBatch([call('1', 'read_a', { id: 'a' }), call('2', 'read_b', { id: 'b' })], ctx);
    expect(log).toEqual(['start:a', 'start:b', 'end:a', 'end:b']);
  });

  it('runs a whole batch serially, in call order, when one tool is mutating', async () => {
    const log: string[] = [];
    const tools = dispatcher([
      // Every promise job runs before read_slow ends: a concurrent batch would have started the next call.
      loggingTool('read_slow', log, { wait: promiseJobsRun }),
      loggingTool('write', log, { mutating: true }),
      loggingTool('read_fast', log),
    ]);
    const { ctx, events } = recordingContext();
    await tools.runBatch(
      [
        call('1', 'read_slow', { id: 'a' }),
        call('2', 'write', { id: 'b' }),
        call('3', 'read_fast', { id: 'c' }),
      ],
      ctx,
    );
    expect(log).toEqual(['start:a', 'end:a', 'start:b', 'end:b', 'start:c', 'end:c']);
    expect(events.map((e) => `${e.type}:${'callId' in e ? e.callId : ''}`)).toEqual([
      'tool_call_start:1',
      'tool_call_end:1',
      'tool_call_start:2',
      'tool_call_end:2',
      'tool_call_start:3',
      'tool_call_end:3',
    ]);
  });

  it('returns results in call order whatever the completion order', async () => {
    const log: string[] = [];
    const tools = dispatcher([
      // The fast calls settle through promise jobs alone; the slow one only after all of those.
      loggingTool('slow', log, { wait: promiseJobsRun }),
      loggingTool('fast', log, { wait: () => Promise.resolve() }),
    ]);
    const { ctx, events } = recordingContext();
    const results = await tools.runBatch(
      [call('1', 'slow', { id: 's' }), call('2', 'fast', { id: 'f' }), call('3', 'fast', { id: 'g' })],
      ctx,
    );
    // The fast ones finished first…
    expect(events.filter((e) => e.type === 'tool_call_end').map((e) => 'callId' in e && e.callId)).toEqual([
      '2',
      '3',
      '1',
    ]);
    // …but the results keep the call order.
    expect(results.map((r) => [r.callId, r.output.content])).toEqual([
      ['1', 'done s'],
      ['2', 'done f'],
      ['3', 'done g'],
    ]);
  });

  it('exposes the specs once, in registration order, with JSON Schema parameters', () => {
    const log: string[] = [];
    const tools = dispatcher([weather, loggingTool('write', log, { mutating: true })]);
    expect(tools.specs.map((s) => s.name)).toEqual(['get_weather', 'write']);
    expect(tools.specs[0]!.parameters).toMatchObject({
      type: 'object',
      properties: { city: { type: 'string' } },
      required: ['city'],
    });
    expect(tools.specs).toBe(tools.specs);
    expect(tools.has('write')).toBe(true);
    expect(tools.has('nope')).toBe(false);
    expect(tools.isMutating('write')).toBe(true);
    expect(tools.isMutating('get_weather')).toBe(false);
    expect(tools.isMutating('nope')).toBe(false);
  });

  it('rejects two tools with one name (NAME_CONFLICT)', () => {
    expect(() => dispatcher([weather, weather])).toThrow(expect.objectContaining({ code: 'NAME_CONFLICT' }));
  });
});

describe('ToolDispatcher: one call', () => {
  it('validates with the schema, gives execute the parsed value, and keeps the model’s arguments in events', async () => {
    const tools = dispatcher([weather]);
    const { ctx, events } = recordingContext();
    const [result] = await tools.runBatch([call('1', 'get_weather', { city: 'Paris' })], ctx);
    expect(result!.output.content).toBe('{"city":"Paris","days":1}'); // default applied for execute
    expect(result!.arguments).toEqual({ city: 'Paris' });
    expect(result!.isError).toBe(false);
    expect(events[0]).toEqual({
      type: 'tool_call_start',
      callId: '1',
      toolName: 'get_weather',
      arguments: { city: 'Paris' },
    });
    expect(events[1]).toMatchObject({ type: 'tool_call_end', callId: '1', success: true });
  });

  it('accepts a tool schema written with classic zod', async () => {
    const classic = defineTool({
      name: 'echo',
      description: 'echo',
      parameters: zc.object({ text: zc.string().min(1) }),
      execute: async ({ arguments: { text } }) => text.toUpperCase(),
    });
    const { ctx } = recordingContext();
    const [ok, bad] = await dispatcher([classic]).runBatch(
      [call('1', 'echo', { text: 'hi' }), call('2', 'echo', { text: '' })],
      ctx,
    );
    expect(ok!.output.content).toBe('HI');
    expect(bad!.isError).toBe(true);
    expect(bad!.output.content).toContain('text');
  });

  it('validates with a schema that has an async refinement: a pass runs the tool, a failure does not', async () => {
    const known = new Set(['Paris']);
    const ran: string[] = [];
    const lookup = defineTool({
      name: 'lookup',
      description: 'looks a city up',
      parameters: zc.object({
        city: zc.string().refine(async (city) => known.has(city), { message: 'unknown city' }),
      }),
      execute: async ({ arguments: { city } }) => {
        ran.push(city);
        return city;
      },
    });
    const { ctx } = recordingContext();
    const [ok, bad] = await dispatcher([lookup]).runBatch(
      [call('1', 'lookup', { city: 'Paris' }), call('2', 'lookup', { city: 'Atlantis' })],
      ctx,
    );
    expect(ok).toMatchObject({ isError: false, output: { content: 'Paris' } });
    expect(bad!.isError).toBe(true);
    expect(bad!.output.content).toContain('city: unknown city');
    expect(ran).toEqual(['Paris']);
  });

  it('answers a schema whose check throws with an error result, and does not execute', async () => {
    let executed = false;
    const brittle = defineTool({
      name: 'brittle',
      description: 'its schema throws',
      parameters: zc.object({ n: zc.number() }).refine(() => {
        throw new Error('check exploded');
      }),
      execute: async () => {
        executed = true;
        return 'ran';
      },
    });
    const { ctx } = recordingContext();
    const [result] = await dispatcher([brittle]).runBatch([call('1', 'brittle', { n: 1 })], ctx);
    expect(executed).toBe(false);
    expect(result!.isError).toBe(true);
    expect(result!.output.content).toContain('check exploded');
  });

  it('lists each failing path of a schema failure, names the tool, and does not execute', async () => {
    let executed = false;
    const tool = defineTool({
      ...weather,
      execute: async () => {
        executed = true;
        return 'ran';
      },
    });
    const { ctx, events } = recordingContext();
    const [result] = await dispatcher([tool]).runBatch(
      [call('1', 'get_weather', { city: 42, options: { units: 'k' } })],
      ctx,
    );
    expect(executed).toBe(false);
    expect(result!.isError).toBe(true);
    expect(result!.output.content).toMatch(/^Invalid arguments for tool 'get_weather': /);
    expect(result!.output.content).toContain('city: expected string');
    expect(result!.output.content).toContain('options.units: expected one of "c", "f"');
    expect(events.map((e) => e.type)).toEqual(['tool_call_start', 'tool_call_end']);
    expect(events[1]).toMatchObject({ success: false });
  });

  it('answers an unknown tool with an error result naming it and the available tools', async () => {
    const { ctx, events } = recordingContext();
    const [result] = await dispatcher([weather]).runBatch([call('1', 'teleport', { to: 'moon' })], ctx);
    expect(result).toMatchObject({ toolName: 'teleport', isError: true, skipped: false });
    expect(result!.output.content).toBe("Unknown tool 'teleport'. Available tools: get_weather.");
    expect(events.map((e) => e.type)).toEqual(['tool_call_start', 'tool_call_end']);
  });

  it('marks a mutating call before it runs, and not one that is denied or has invalid arguments', async () => {
    const log: string[] = [];
    const tools = dispatcher([loggingTool('write', log, { mutating: true })]);
    const { ctx } = recordingContext();
    const marked: string[] = [];
    ctx.beforeMutatingCall = async (callId) => void marked.push(callId);
    ctx.denied = new Map([['denied', 'Tool call denied by the user: no']]);
    await tools.runBatch(
      [call('runs', 'write', { id: 'a' }), call('denied', 'write', { id: 'b' }), call('bad', 'write', {})],
      ctx,
    );
    expect(marked).toEqual(['runs']);
    expect(log).toEqual(['start:a', 'end:a']);
  });

  it('keeps invalid JSON arguments as the raw string and answers with an error result', async () => {
    const { ctx, events } = recordingContext();
    const [result] = await dispatcher([weather]).runBatch([call('1', 'get_weather', '{"city": "Par')], ctx);
    expect(result!.arguments).toBe('{"city": "Par');
    expect(result!.isError).toBe(true);
    expect(result!.output.content).toMatch(/^Invalid arguments for tool 'get_weather': not valid JSON/);
    expect(events[0]).toMatchObject({ type: 'tool_call_start', arguments: '{"city": "Par' });
  });

  it('treats empty argument text as no arguments ({})', async () => {
    const noArgs = defineTool({
      name: 'now',
      description: 'time',
      parameters: z.object({}),
      execute: async () => 'noon',
    });
    const { ctx } = recordingContext();
    const [result] = await dispatcher([noArgs]).runBatch([call('1', 'now', '')], ctx);
    expect(result).toMatchObject({ arguments: {}, isError: false, output: { content: 'noon' } });
  });

  it('turns a throw into an error result the model reads, and the batch goes on', async () => {
    const failing = defineTool({
      name: 'fail',
      description: 'fails',
      parameters: z.object({}),
      execute: () => {
        throw new Error('disk full');
      },
    });
    const log: string[] = [];
    const { ctx, events } = recordingContext();
    const results = await dispatcher([failing, loggingTool('ok', log)]).runBatch(
      [call('1', 'fail'), call('2', 'ok', { id: 'x' })],
      ctx,
    );
    expect(results[0]).toMatchObject({
      isError: true,
      output: { content: "Tool 'fail' failed: disk full", isError: true },
    });
    expect(results[1]).toMatchObject({ isError: false, output: { content: 'done x' } });
    expect(events.filter((e) => e.type === 'tool_call_end').map((e) => 'success' in e && e.success)).toEqual([
      false,
      true,
    ]);
  });

  it('reads a ToolOutput with isError as an error, and a malformed return as a tool failure', async () => {
    const reportsError = noArgsTool('soft_fail', async () => ({
      content: 'not found',
      isError: true,
      metadata: { status: 404 },
    }));
    const malformed = {
      name: 'malformed',
      description: '',
      parameters: z.object({}),
      execute: async () => 42 as unknown as string,
    } satisfies ToolHandler<{}>;
    const { ctx } = recordingContext();
    const [soft, bad] = await dispatcher([reportsError, malformed]).runBatch(
      [call('1', 'soft_fail'), call('2', 'malformed')],
      ctx,
    );
    expect(soft).toMatchObject({
      isError: true,
      output: { content: 'not found', metadata: { status: 404 } },
    });
    expect(bad).toMatchObject({ isError: true });
    expect(bad!.output.content).toContain("Tool 'malformed' returned an invalid result");
  });

  it('times out a tool, answers "Tool timed out after <ms>ms", and aborts its signal', async () => {
    let seenSignal: AbortSignal | undefined;
    const hanging = defineTool({
      name: 'hang',
      description: 'never finishes by itself',
      parameters: z.object({}),
      execute: ({ signal }) => {
        seenSignal = signal;
        // Cooperative: stops (rejects) when its signal aborts.
        return new Promise<string>((_, reject) =>
          signal.addEventListener('abort', () => reject(signal.reason)),
        );
      },
    });
    const { ctx, events } = recordingContext();
    const [result] = await dispatcher([hanging], { timeoutMs: 30 }).runBatch([call('1', 'hang')], ctx);
    expect(result).toMatchObject({
      isError: true,
      output: { content: 'Tool timed out after 30ms', isError: true },
    });
    expect(seenSignal?.aborted).toBe(true);
    expect(seenSignal?.reason).toMatchObject({ code: 'TOOL_TIMEOUT' });
    expect(events.at(-1)).toMatchObject({ type: 'tool_call_end', success: false });
  });

  it('hands a tool that reads its signal only after the timeout an aborted one, the same on every read', async () => {
    let input: { signal: AbortSignal } | undefined;
    const late = noArgsTool('late', (received) => {
      input = received;
      return new Promise<string>(() => {});
    });
    const { ctx } = recordingContext();
    const [result] = await dispatcher([late], { timeoutMs: 20 }).runBatch([call('1', 'late')], ctx);
    expect(result!.output.content).toBe('Tool timed out after 20ms');
    const signal = input!.signal;
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toMatchObject({ code: 'TOOL_TIMEOUT' });
    expect(input!.signal).toBe(signal);
  });

  it('runs a tool that returns synchronously (a string, or a throw) like an async one', async () => {
    const sync = noArgsTool('sync', (() => 'right away') as unknown as ToolHandler['execute']);
    const throws = noArgsTool('throws', () => {
      throw new Error('at once');
    });
    const { ctx } = recordingContext();
    const [ok, failed] = await dispatcher([sync, throws]).runBatch(
      [call('1', 'sync'), call('2', 'throws')],
      ctx,
    );
    expect(ok).toMatchObject({ isError: false, output: { content: 'right away' } });
    expect(failed).toMatchObject({ isError: true });
    expect(failed!.output.content).toContain('at once');
  });

  it('times out a tool that ignores its signal too', async () => {
    const deaf = noArgsTool('deaf', () => new Promise<string>(() => {}));
    const { ctx } = recordingContext();
    const [result] = await dispatcher([deaf], { timeoutMs: 20 }).runBatch([call('1', 'deaf')], ctx);
    expect(result!.output.content).toBe('Tool timed out after 20ms');
  });

  it('truncates output over 1 MiB before the end event, at a whole character', async () => {
    const big = noArgsTool('big', async () => 'é'.repeat(600_000));
    const { ctx, events } = recordingContext();
    const [result] = await dispatcher([big]).runBatch([call('1', 'big')], ctx);
    const expected = 'é'.repeat(MAX_TOOL_OUTPUT_BYTES / 2) + TRUNCATION_MARKER;
    expect(result!.output.content).toBe(expected);
    expect(events.at(-1)).toMatchObject({ type: 'tool_call_end', output: { content: expected } });
  });

  it('never rejects, even when the event sink throws', async () => {
    const tool = noArgsTool('ok', async () => 'fine');
    const { ctx, errors } = recordingContext();
    ctx.emit = () => {
      throw new Error('sink closed');
    };
    const results = await dispatcher([tool]).runBatch([call('1', 'ok'), call('2', 'ok')], ctx);
    expect(results.map((r) => [r.callId, r.isError])).toEqual([
      ['1', true],
      ['2', true],
    ]);
    expect(errors.map((e) => e.message)).toEqual([
      'sink closed',
      'sink closed',
    ]);
  });
});

describe('ToolDispatcher: hooks', () => {
  it('runs parse → before_tool_use → start → execute → after_tool_use → end, in that order', async () => {
    const log: string[] = [];
    const hooks = new HookRegistry({ timeoutMs: 1_000 });
    hooks.tap('before_tool_use', 'audit', null, ({ data }) => {
      log.push(`before_tool_use:${data.callId}`);
    });
    hooks.tap('after_tool_use', 'audit', null, ({ data }) => {
      log.push(`after_tool_use:${data.output.content}`);
    });
    const tool = noArgsTool('work', async () => {
      log.push('execute');
      return 'result';
    });
    const { ctx } = recordingContext();
    ctx.emit = (payload) => log.push(payload.type);
    await dispatcher([tool], { hooks }).runBatch([call('1', 'work')], ctx);
    expect(log).toEqual([
      'before_tool_use:1',
      'tool_call_start',
      'execute',
      'after_tool_use:result',
      'tool_call_end',
    ]);
  });

  it('on a before_tool_use abort: no execution, a synthetic error result, still one start/end pair', async () => {
    let executed = false;
    let afterCalled = false;
    const hooks = new HookRegistry({ timeoutMs: 1_000 });
    hooks.tap('before_tool_use', 'guard', null, () => HookResult.abort('not on Sundays'));
    hooks.tap('after_tool_use', 'audit', null, () => {
      afterCalled = true;
    });
    const tool = noArgsTool(
      'rm',
      async () => {
        executed = true;
        return 'removed';
      },
      { mutating: true },
    );
    const { ctx, events } = recordingContext();
    const [result] = await dispatcher([tool], { hooks }).runBatch([call('1', 'rm')], ctx);
    expect(executed).toBe(false);
    expect(afterCalled).toBe(false);
    expect(result).toMatchObject({
      isError: true,
      skipped: false,
      output: { content: 'Tool aborted by hook: not on Sundays', isError: true },
    });
    expect(events.map((e) => e.type)).toEqual(['tool_call_start', 'tool_call_end']);
    expect(events[1]).toMatchObject({
      success: false,
      output: { content: 'Tool aborted by hook: not on Sundays' },
    });
  });

  it('uses before_tool_use replacement arguments after validating them again', async () => {
    const hooks = new HookRegistry({ timeoutMs: 1_000 });
    hooks.tap('before_tool_use', 'rewrite', null, ({ data }) =>
      HookResult.continueWith({ ...data, arguments: { city: 'Lyon' } }),
    );
    const { ctx, events } = recordingContext();
    const [result] = await dispatcher([weather], { hooks }).runBatch(
      [call('1', 'get_weather', { city: 'Paris' })],
      ctx,
    );
    expect(result!.arguments).toEqual({ city: 'Lyon' });
    expect(result!.output.content).toBe('{"city":"Lyon","days":1}');
    expect(events[0]).toMatchObject({ type: 'tool_call_start', arguments: { city: 'Lyon' } });
  });

  it('answers with an error result when the replacement arguments fail the schema', async () => {
    let executed = false;
    const tool = defineTool({
      ...weather,
      execute: async () => {
        executed = true;
        return '';
      },
    });
    const hooks = new HookRegistry({ timeoutMs: 1_000 });
    hooks.tap('before_tool_use', 'rewrite', null, ({ data }) =>
      HookResult.continueWith({ ...data, arguments: { city: ['not', 'a', 'string'] } }),
    );
    const { ctx } = recordingContext();
    const [result] = await dispatcher([tool], { hooks }).runBatch(
      [call('1', 'get_weather', { city: 'Paris' })],
      ctx,
    );
    expect(executed).toBe(false);
    expect(result!.isError).toBe(true);
    expect(result!.output.content).toBe(
      "Invalid arguments for tool 'get_weather' (as replaced by a before_tool_use hook): city: expected string",
    );
  });

  it('gives after_tool_use the truncated output, and truncates its replacement again', async () => {
    let seenLength = 0;
    const hooks = new HookRegistry({ timeoutMs: 1_000 });
    hooks.tap('after_tool_use', 'redact', null, ({ data }) => {
      seenLength = data.output.content.length;
      return HookResult.continueWith({
        ...data,
        output: { content: 'x'.repeat(MAX_TOOL_OUTPUT_BYTES + 10) },
      });
    });
    const big = noArgsTool('big', async () => 'y'.repeat(MAX_TOOL_OUTPUT_BYTES * 2));
    const { ctx, events } = recordingContext();
    const [result] = await dispatcher([big], { hooks }).runBatch([call('1', 'big')], ctx);
    expect(seenLength).toBe(MAX_TOOL_OUTPUT_BYTES + TRUNCATION_MARKER.length);
    const expected = 'x'.repeat(MAX_TOOL_OUTPUT_BYTES) + TRUNCATION_MARKER;
    expect(result!.output.content).toBe(expected);
    expect(events.at(-1)).toMatchObject({
      type: 'tool_call_end',
      output: { content: expected },
      success: true,
    });
  });

  it('lets after_tool_use replace the output (redaction) in the result and the end event', async () => {
    const hooks = new HookRegistry({ timeoutMs: 1_000 });
    hooks.tap('after_tool_use', 'redact', null, ({ data }) =>
      HookResult.continueWith({
        ...data,
        output: { content: data.output.content.replace(/\d{4}/g, '****') },
      }),
    );
    const tool = noArgsTool('card', async () => 'card 1234');
    const { ctx, events } = recordingContext();
    const [result] = await dispatcher([tool], { hooks }).runBatch([call('1', 'card')], ctx);
    expect(result!.output.content).toBe('card ****');
    expect(events.at(-1)).toMatchObject({ output: { content: 'card ****' } });
  });

  it('reports a failing tool hook as HOOK_FAILED and still runs the tool', async () => {
    const hooks = new HookRegistry({ timeoutMs: 1_000 });
    hooks.tap('before_tool_use', 'buggy', null, () => {
      throw new Error('oops');
    });
    const tool = noArgsTool('ok', async () => 'fine');
    const { ctx, errors } = recordingContext();
    const [result] = await dispatcher([tool], { hooks }).runBatch([call('1', 'ok')], ctx);
    expect(result!.output.content).toBe('fine');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ code: 'HOOK_FAILED' });
    expect(errors[0]!.message).toContain("plugin 'buggy' before_tool_use hook: oops");
  });
});

describe('ToolDispatcher: cancellation', () => {
  it('lets a started call finish and skips the calls not started, without events', async () => {
    const cancel = new AbortController();
    let ownSignal: AbortSignal | undefined;
    const log: string[] = [];
    const cancelling = noArgsTool(
      'cancelling',
      async ({ signal }) => {
        ownSignal = signal;
        cancel.abort(); // the user cancels while this call runs
        await promiseJobsRun(); // and it goes on running: the dispatcher must not cut it short
        return 'finished anyway';
      },
      { mutating: true },
    );
    const { ctx, events } = recordingContext(cancel);
    const results = await dispatcher([cancelling, loggingTool('next', log)]).runBatch(
      [call('1', 'cancelling'), call('2', 'next', { id: 'a' }), call('3', 'next', '{bad json')],
      ctx,
    );
    expect(results[0]).toMatchObject({
      skipped: false,
      isError: false,
      output: { content: 'finished anyway' },
    });
    expect(ownSignal?.aborted).toBe(false);
    expect(results.slice(1)).toEqual([
      {
        callId: '2',
        toolName: 'next',
        arguments: { id: 'a' },
        output: { content: TOOL_CALL_SKIPPED_TEXT, isError: true },
        isError: true,
        skipped: true,
        executed: false,
        durationMs: 0,
      },
      {
        callId: '3',
        toolName: 'next',
        arguments: '{bad json',
        output: { content: TOOL_CALL_SKIPPED_TEXT, isError: true },
        isError: true,
        skipped: true,
        executed: false,
        durationMs: 0,
      },
    ]);
    expect(log).toEqual([]);
    expect(events.map((e) => `${e.type}:${'callId' in e ? e.callId : ''}`)).toEqual([
      'tool_call_start:1',
      'tool_call_end:1',
    ]);
  });

  it('skips every call of a batch cancelled before it began', async () => {
    const cancel = new AbortController();
    cancel.abort();
    const log: string[] = [];
    const { ctx, events } = recordingContext(cancel);
    const results = await dispatcher([loggingTool('read', log)]).runBatch(
      [call('1', 'read', { id: 'a' }), call('2', 'read', { id: 'b' })],
      ctx,
    );
    expect(results.map((r) => r.skipped)).toEqual([true, true]);
    expect(log).toEqual([]);
    expect(events).toEqual([]);
  });

  it('skips a concurrent call cancelled while its before_tool_use hook ran (not started yet)', async () => {
    const cancel = new AbortController();
    const log: string[] = [];
    const firstStarted = deferred();
    const hooks = new HookRegistry({ timeoutMs: 1_000 });
    hooks.tap('before_tool_use', 'slow', null, async ({ data }) => {
      // Call 2's hook is still running when call 1 has started executing; then the turn is cancelled.
      if (data.callId === '2') {
        await firstStarted.promise;
        cancel.abort();
      }
    });
    const read = defineTool({
      name: 'read',
      description: '',
      parameters: z.object({ id: z.string() }),
      execute: async ({ arguments: { id } }) => {
        log.push(`start:${id}`);
        firstStarted.resolve();
        await aborted(cancel.signal); // runs on past the cancel of the batch
        log.push(`end:${id}`);
        return id;
      },
    });
    const { ctx, events } = recordingContext(cancel);
    const results = await dispatcher([read], { hooks }).runBatch(
      [call('1', 'read', { id: 'a' }), call('2', 'read', { id: 'b' })],
      ctx,
    );
    expect(results.map((r) => r.skipped)).toEqual([false, true]);
    expect(results[0]!.output.content).toBe('a');
    expect(log).toEqual(['start:a', 'end:a']);
    expect(events.filter((e) => 'callId' in e && e.callId === '2')).toEqual([]);
  });
  it('skips a mutating call whose session lease ran out while its start was being stored', async () => {
    const log: string[] = [];
    let live = true;
    const { ctx, events } = recordingContext();
    ctx.mayStart = () => live;
    // The lease runs out while the `tool_started` marker is stored (a database that hangs).
    ctx.beforeMutatingCall = async () => {
      live = false;
    };
    const results = await dispatcher([loggingTool('pay', log, { mutating: true })]).runBatch(
      [call('1', 'pay', { id: 'a' }), call('2', 'pay', { id: 'b' })],
      ctx,
    );
    expect(results.map((r) => r.skipped)).toEqual([true, true]);
    expect(log).toEqual([]);
    expect(events.some((e) => e.type === 'tool_call_start')).toBe(false);
  });
});
