/**
 * The repeated-call guard (`maxRepeatedToolCalls`) through the public API: a scripted model that
 * keeps sending the same call, and what runs, what the model reads, and what the events say.
 */
import { firstValueFrom } from 'rxjs';
import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { defineTool, HookResult, type AgentEvent, type AgentEventPayload, type Message } from '../../src/index.js';
import { reply } from '../../src/testing/index.js';
import { repeated } from '../../src/prompt/tool-result-texts.js';
import { createTestAgent, recordingTool, testPlugin } from '../support/agent.js';
import { eventsOf } from '../support/events.js';

/** One response calling `echo` with `text` once per id in `callIds`. */
const echoCalls = (text: string, ...callIds: string[]) =>
  reply.toolCalls(callIds.map((callId) => ({ name: 'echo', arguments: { text }, callId })));

/** The `tool_result` messages of a history, as `callId → content`. */
const resultsOf = (messages: readonly Message[]) =>
  Object.fromEntries(
    messages.flatMap((m) => (m.type === 'tool_result' ? [[m.callId, m.content] as const] : [])),
  );

/** How many times the echo tool ran. */
const runs = (log: readonly string[]) => log.filter((line) => line.startsWith('end:')).length;

const toolEvents = (events: readonly AgentEvent[]) =>
  events
    .map((e) => e.payload)
    .filter((p): p is Extract<AgentEventPayload, { type: 'tool_call_start' | 'tool_call_end' }> =>
      p.type.startsWith('tool_call_'),
    );

describe('repeated identical tool calls', () => {
  it('refuses a call made 3 times already in the turn (the default); the model reads why', async () => {
    const echo = recordingTool('echo');
    const hooked: string[] = [];
    const spy = testPlugin('spy', {
      before_tool_use: ({ data }) => void hooked.push(`before:${data.callId}`),
      after_tool_use: ({ data }) => void hooked.push(`after:${data.callId}`),
    });
    const { agent, provider } = await createTestAgent({
      tools: [echo.tool],
      plugins: [spy],
      script: [
        echoCalls('x', 'c1'),
        echoCalls('x', 'c2'),
        echoCalls('x', 'c3'),
        echoCalls('x', 'c4'),
        reply.text('giving up'),
      ],
    });
    const session = await agent.newSession();
    const turn = await session.sendMessage('loop');
    const events = await eventsOf(turn);
    expect(await turn.result).toMatchObject({ status: 'completed' });
    expect(runs(echo.log)).toBe(3);
    expect(repeated(3)).toMatch(/3 times in this turn/);
    expect(resultsOf(session.messages)).toEqual({ c1: 'x', c2: 'x', c3: 'x', c4: repeated(3) });
    expect(session.messages.find((m) => m.type === 'tool_result' && m.callId === 'c4')).toMatchObject({
      isError: true,
    });
    // The model read the refusal, and the turn went on to its answer.
    expect(provider.requests[4]!.messages.at(-1)).toMatchObject({ callId: 'c4', content: repeated(3) });
    // The refused call still has its start/end pair (with the error output); no hook ran for it.
    expect(toolEvents(events).filter((p) => p.callId === 'c4')).toEqual([
      { type: 'tool_call_start', callId: 'c4', toolName: 'echo', arguments: { text: 'x' } },
      {
        type: 'tool_call_end',
        callId: 'c4',
        toolName: 'echo',
        output: { content: repeated(3), isError: true },
        durationMs: 0,
        success: false,
      },
    ]);
    expect(hooked.filter((h) => h.endsWith(':c4'))).toEqual([]);
    expect(hooked.filter((h) => h.endsWith(':c3'))).toEqual(['before:c3', 'after:c3']);
    const { items } = await firstValueFrom(session.conversation);
    expect(items.find((item) => item.kind === 'tool' && item.callId === 'c4')).toMatchObject({
      status: 'error',
      output: { content: repeated(3), isError: true },
    });
    await agent.shutdown();
  });

  it('compares canonical JSON: key order does not matter, at any depth; other values do', async () => {
    const args: unknown[] = [];
    const pair = defineTool({
      name: 'pair',
      description: 'takes a pair',
      parameters: z.object({ a: z.number(), b: z.object({ x: z.number(), y: z.number() }) }),
      execute: async ({ arguments: value }) => (args.push(value), 'ok'),
    });
    const { agent } = await createTestAgent({
      tools: [pair],
      config: { maxRepeatedToolCalls: 1 },
      script: [
        reply.toolCalls([{ name: 'pair', arguments: '{"a":1,"b":{"x":1,"y":2}}', callId: 'c1' }]),
        reply.toolCalls([{ name: 'pair', arguments: '{"b":{"y":2,"x":1},"a":1}', callId: 'c2' }]),
        reply.toolCalls([{ name: 'pair', arguments: '{ "b": {"x":1, "y":3}, "a": 1 }', callId: 'c3' }]),
        reply.text('done'),
      ],
    });
    const session = await agent.newSession();
    await (
      await session.sendMessage('pairs')
    ).result;
    expect(resultsOf(session.messages)).toEqual({ c1: 'ok', c2: repeated(1), c3: 'ok' });
    expect(args).toEqual([
      { a: 1, b: { x: 1, y: 2 } },
      { a: 1, b: { x: 1, y: 3 } },
    ]);
    await agent.shutdown();
  });

  it('counts identical calls within one batch in batch order', async () => {
    const echo = recordingTool('echo');
    const { agent } = await createTestAgent({
      tools: [echo.tool],
      config: { maxRepeatedToolCalls: 2 },
      script: [echoCalls('x', 'c1', 'c2', 'c3', 'c4'), echoCalls('x', 'c5'), reply.text('done')],
    });
    const session = await agent.newSession();
    await (
      await session.sendMessage('batch')
    ).result;
    expect(runs(echo.log)).toBe(2);
    expect(resultsOf(session.messages)).toEqual({
      c1: 'x',
      c2: 'x',
      c3: repeated(2),
      c4: repeated(2),
      c5: repeated(2),
    });
    await agent.shutdown();
  });

  it('counts only calls that were made: one denied approval does not count', async () => {
    const echo = recordingTool('echo');
    const { agent } = await createTestAgent({
      tools: [echo.tool],
      config: {
        maxRepeatedToolCalls: 1,
        approval: { policy: ({ callId }) => (callId === 'c1' ? 'deny' : 'allow') },
      },
      script: [echoCalls('x', 'c1', 'c2', 'c3'), reply.text('done')],
    });
    const session = await agent.newSession();
    await (
      await session.sendMessage('approve')
    ).result;
    // c1 was denied (it never ran), so c2 is the first call made; c3 repeats it.
    expect(runs(echo.log)).toBe(1);
    const results = resultsOf(session.messages);
    expect(results.c1).toMatch(/denied by policy/);
    expect(results).toMatchObject({ c2: 'x', c3: repeated(1) });
    await agent.shutdown();
  });

  it('counts executed calls only: invalid arguments, an unknown tool and a hook-aborted call never count', async () => {
    const echo = recordingTool('echo');
    const aborter = testPlugin('aborter', {
      before_tool_use: ({ data }) => (data.callId.startsWith('h') ? HookResult.abort('not now') : undefined),
    });
    const bad = (callId: string) => reply.toolCalls([{ name: 'echo', arguments: '{"text":1}', callId }]);
    const unknown = (callId: string) => reply.toolCalls([{ name: 'nope', arguments: '{}', callId }]);
    const { agent } = await createTestAgent({
      tools: [echo.tool],
      plugins: [aborter],
      config: { maxRepeatedToolCalls: 1 },
      script: [
        bad('b1'),
        bad('b2'),
        unknown('u1'),
        unknown('u2'),
        echoCalls('x', 'h1'),
        echoCalls('x', 'c1'),
        echoCalls('x', 'c2'),
        reply.text('done'),
      ],
    });
    const session = await agent.newSession();
    await (
      await session.sendMessage('try')
    ).result;
    const results = resultsOf(session.messages);
    // Each failed call was refused for its own reason, never as a repeat.
    for (const id of ['b1', 'b2', 'u1', 'u2', 'h1']) expect(results[id]).not.toBe(repeated(1));
    expect(results.b2).toBe(results.b1);
    expect(results.u2).toBe(results.u1);
    // The aborted call did not run, so the first executed echo is c1; c2 repeats it.
    expect(runs(echo.log)).toBe(1);
    expect(results).toMatchObject({ c1: 'x', c2: repeated(1) });
    await agent.shutdown();
  });

  it('compares arguments exactly: two whose old 32-bit hashes collide are not repeats', async () => {
    const seen: unknown[] = [];
    const query = defineTool({
      name: 'query',
      description: 'looks something up',
      parameters: z.object({ q: z.string() }),
      execute: async ({ arguments: value }) => (seen.push(value.q), 'ok'),
    });
    const { agent } = await createTestAgent({
      tools: [query],
      config: { maxRepeatedToolCalls: 1 },
      script: [
        // `{"q":"vpv3fapj97"}` and `{"q":"z5qdykimp4"}` have the same FNV-1a hash.
        reply.toolCalls([{ name: 'query', arguments: '{"q":"vpv3fapj97"}', callId: 'c1' }]),
        reply.toolCalls([{ name: 'query', arguments: '{"q":"z5qdykimp4"}', callId: 'c2' }]),
        reply.text('done'),
      ],
    });
    const session = await agent.newSession();
    await (
      await session.sendMessage('look up')
    ).result;
    expect(seen).toEqual(['vpv3fapj97', 'z5qdykimp4']);
    expect(resultsOf(session.messages)).toEqual({ c1: 'ok', c2: 'ok' });
    await agent.shutdown();
  });

  it('starts every turn at zero', async () => {
    const echo = recordingTool('echo');
    const { agent } = await createTestAgent({
      tools: [echo.tool],
      config: { maxRepeatedToolCalls: 1 },
      script: [echoCalls('x', 'c1'), reply.text('one'), echoCalls('x', 'c2'), reply.text('two')],
    });
    const session = await agent.newSession();
    await (
      await session.sendMessage('first')
    ).result;
    await (
      await session.sendMessage('second')
    ).result;
    expect(runs(echo.log)).toBe(2);
    expect(resultsOf(session.messages)).toEqual({ c1: 'x', c2: 'x' });
    await agent.shutdown();
  });

  it('counts refused calls toward maxToolCallsPerTurn', async () => {
    const echo = recordingTool('echo');
    const { agent, provider } = await createTestAgent({
      tools: [echo.tool],
      config: { maxRepeatedToolCalls: 1, maxToolCallsPerTurn: 3 },
      script: [echoCalls('x', 'c1', 'c2'), echoCalls('x', 'c3'), reply.text('never requested')],
    });
    const session = await agent.newSession();
    const turn = await session.sendMessage('loop');
    const events = await eventsOf(turn);
    expect(runs(echo.log)).toBe(1);
    expect(resultsOf(session.messages)).toEqual({ c1: 'x', c2: repeated(1), c3: repeated(1) });
    // Three calls (two of them refused) reached the limit of three.
    expect(provider.calls).toBe(2);
    expect(events.at(-1)!.payload).toMatchObject({ type: 'turn_complete', finishReason: 'max_tool_calls' });
    await agent.shutdown();
  });

  it('0 turns the guard off', async () => {
    const echo = recordingTool('echo');
    const { agent } = await createTestAgent({
      tools: [echo.tool],
      config: { maxRepeatedToolCalls: 0 },
      script: [echoCalls('x', 'c1', 'c2', 'c3'), echoCalls('x', 'c4', 'c5'), reply.text('done')],
    });
    const session = await agent.newSession();
    await (
      await session.sendMessage('loop')
    ).result;
    expect(runs(echo.log)).toBe(5);
    expect(Object.values(resultsOf(session.messages))).toEqual(['x', 'x', 'x', 'x', 'x']);
    await agent.shutdown();
  });

  it('rejects a negative or fractional limit at build()', async () => {
    for (const maxRepeatedToolCalls of [-1, 1.5]) {
      await expect(createTestAgent({ config: { maxRepeatedToolCalls } })).rejects.toMatchObject({
        code: 'INVALID_INPUT',
        message: expect.stringContaining('maxRepeatedToolCalls'),
      });
    }
  });
});
