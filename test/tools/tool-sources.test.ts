import { Subject } from 'rxjs';
import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { defineTool, type AgentEvent, type ToolHandler, type ToolSource } from '../../src/index.js';
import { systemClock } from '../../src/clock.js';
import { reply } from '../../src/testing/index.js';
import { toolSources } from '../../src/tools/tool-sources.js';
import { createTestAgent, recordingTool, testPlugin } from '../support/agent.js';
import { expectAgentError } from '../support/errors.js';
import { eventsOf, errorPayloads } from '../support/events.js';
import { storedAfterClose } from '../support/history.js';
import { deferred } from '../support/waits.js';

const echo = (name: string, prefix = name) =>
  defineTool({
    name,
    description: `${name} tool`,
    parameters: z.object({ text: z.string() }),
    execute: async ({ arguments: { text } }) => `${prefix}:${text}`,
  });

/** A source serving `lists` one after another (the last one again), counting its calls. */
function listSource(id: string, ...lists: (readonly ToolHandler[] | Error | 'hang')[]) {
  let calls = 0;
  const changes = new Subject<void>();
  const closed: string[] = [];
  const source: ToolSource = {
    id,
    changes,
    tools: (signal) => {
      const next = lists[Math.min(calls++, lists.length - 1)]!;
      if (next === 'hang') {
        // Ends only when the deadline aborts it.
        return new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason)));
      }
      return next instanceof Error ? Promise.reject(next) : Promise.resolve(next);
    },
    close: async () => void closed.push(id),
  };
  return {
    source,
    changes,
    closed,
    get calls() {
      return calls;
    },
  };
}

const toolNames = (request: { tools: readonly { name: string }[] } | undefined) =>
  request?.tools.map((t) => t.name);

describe('tool sources through the public API', () => {
  it('offers a source’s tools after the registered ones and runs their calls like any tool', async () => {
    const local = recordingTool('local');
    const remote = listSource('remote', [echo('lookup', 'found')]);
    const seen: string[] = [];
    const audit = testPlugin('audit', {
      before_tool_use: ({ data }) => void seen.push(`before:${data.toolName}`),
      after_tool_use: ({ data }) => void seen.push(`after:${data.toolName}:${data.output.content}`),
    });
    const { agent, provider } = await createTestAgent({
      tools: [local.tool],
      toolSources: [remote.source],
      plugins: [audit],
      script: [
        reply.toolCalls([
          { name: 'lookup', arguments: { text: 'x' }, callId: 'c1' },
          { name: 'lookup', arguments: { text: 42 }, callId: 'c2' },
        ]),
        reply.text('done'),
      ],
    });
    const session = await agent.newSession();
    const turn = await session.sendMessage('go');
    expect((await turn.result).status).toBe('completed');
    expect(toolNames(provider.requests[0])).toEqual(['local', 'lookup']);
    expect(provider.requests[0]!.tools[1]!.parameters).toMatchObject({
      type: 'object',
      properties: { text: { type: 'string' } },
    });
    const results = provider.requests[1]!.messages.filter((m) => m.type === 'tool_result');
    expect(results[0]).toEqual({ type: 'tool_result', callId: 'c1', content: 'found:x', isError: false });
    // Validated by its schema like a registered tool: the bad call never ran.
    expect(results[1]).toMatchObject({ callId: 'c2', isError: true });
    expect(seen).toEqual(['before:lookup', 'after:lookup:found:x']);
    // Asked before each model request.
    expect(remote.calls).toBe(2);
    await agent.shutdown();
    expect(remote.closed).toEqual(['remote']);
  });

  it('a source tool named like a registered tool is left out, reported once per session', async () => {
    const local = recordingTool('search');
    const remote = listSource('remote', [echo('search', 'remote'), echo('other')]);
    const { agent, provider } = await createTestAgent({
      tools: [local.tool],
      toolSources: [remote.source],
      script: [
        reply.toolCalls([{ name: 'search', arguments: { text: 'q' }, callId: 'c1' }]),
        reply.text('one'),
        reply.text('two'),
      ],
    });
    const session = await agent.newSession();
    const first = await session.sendMessage('go');
    const firstEvents = await eventsOf(first);
    const second = await session.sendMessage('again');
    const secondEvents = await eventsOf(second);
    expect(toolNames(provider.requests[0])).toEqual(['search', 'other']);
    // The registered tool ran.
    expect(provider.requests[1]!.messages.find((m) => m.type === 'tool_result')).toMatchObject({
      content: 'q',
    });
    const conflicts = errorPayloads(firstEvents);
    expect(conflicts).toHaveLength(1);
    expect(conflicts[0]).toMatchObject({ fatal: false, error: { code: 'NAME_CONFLICT' } });
    expect(conflicts[0]!.error.message).toContain("'search'");
    expect(errorPayloads(secondEvents)).toEqual([]);
    await agent.shutdown();
  });

  it('a name two sources offer is left out of both', async () => {
    const a = listSource('a', [echo('search', 'a'), echo('only_a')]);
    const b = listSource('b', [echo('search', 'b')]);
    const { agent, provider } = await createTestAgent({
      toolSources: [a.source, b.source],
      script: [reply.text('ok')],
    });
    const session = await agent.newSession();
    const events = await eventsOf(await session.sendMessage('go'));
    expect(toolNames(provider.requests[0])).toEqual(['only_a']);
    expect(errorPayloads(events).map((e) => e.error.code)).toEqual(['NAME_CONFLICT', 'NAME_CONFLICT']);
    await agent.shutdown();
  });

  it('a failing source serves its last good list until its changes drop it, reported once per turn', async () => {
    const remote = listSource('remote', [echo('lookup')], new Error('server down'));
    const { agent, provider } = await createTestAgent({
      toolSources: [remote.source],
      script: [
        reply.text('first'),
        reply.toolCalls([{ name: 'lookup', arguments: { text: 'x' } }]),
        reply.toolCalls([{ name: 'lookup', arguments: { text: 'y' } }]),
        reply.text('second'),
        reply.text('third'),
      ],
    });
    const session = await agent.newSession();
    await (
      await session.sendMessage('one')
    ).result;
    const events = await eventsOf(await session.sendMessage('two'));
    // Three requests with a failed source, each offering the last good list; reported once.
    expect(provider.requests.slice(1, 4).map(toolNames)).toEqual([['lookup'], ['lookup'], ['lookup']]);
    const unavailable = errorPayloads(events);
    expect(unavailable).toHaveLength(1);
    expect(unavailable[0]).toMatchObject({ fatal: false, error: { code: 'TOOL_SOURCE_UNAVAILABLE' } });
    expect(unavailable[0]!.error.message).toContain("'remote'");
    expect(unavailable[0]!.error.message).toContain('server down');

    remote.changes.next();
    const third = await session.sendMessage('three');
    expect(errorPayloads(await eventsOf(third)).map((e) => e.error.code)).toEqual([
      'TOOL_SOURCE_UNAVAILABLE',
    ]);
    expect(toolNames(provider.requests[4])).toEqual([]);
    await agent.shutdown();
  });

  it('a source that does not answer within toolSourceTimeoutMs is left out and its signal aborts', async () => {
    const remote = listSource('slow', 'hang');
    const { agent, provider } = await createTestAgent({
      toolSources: [remote.source],
      config: { toolSourceTimeoutMs: 10 },
      script: [reply.text('without it')],
    });
    const session = await agent.newSession();
    const turn = await session.sendMessage('go');
    const events = await eventsOf(turn);
    expect((await turn.result).status).toBe('completed');
    expect(toolNames(provider.requests[0])).toEqual([]);
    const [error] = errorPayloads(events);
    expect(error).toMatchObject({ fatal: false, error: { code: 'TOOL_SOURCE_UNAVAILABLE' } });
    expect(error!.error.message).toContain('10ms');
    await agent.shutdown();
  });

  it('counts the characters of the specs it offers as JSON.stringify does, for the token estimate', async () => {
    const sources = toolSources(
      [listSource('a', [echo('one'), echo('two', 'the second')]).source],
      () => false,
      1_000,
      systemClock,
    );
    const reports = { turn: new Set<string>(), session: new Set<string>(), report: () => {} };
    for (let round = 0; round < 2; round++) {
      const { specs, specsChars } = await sources.resolve(new AbortController().signal, reports);
      expect(specs.map((spec) => spec.name)).toEqual(['one', 'two']);
      expect(specsChars).toBe(JSON.stringify(specs).length);
    }
  });

  it('a mutating source tool makes its batch serial', async () => {
    const log: string[] = [];
    const step = (name: string, mutating: boolean): ToolHandler => ({
      ...defineTool({
        name,
        description: name,
        parameters: z.object({ text: z.string() }),
        execute: async ({ arguments: { text } }) => {
          log.push(`start:${text}`);
          await new Promise((resolve) => setTimeout(resolve, 0));
          log.push(`end:${text}`);
          return text;
        },
      }),
      mutating,
    });
    const remote = listSource('remote', [step('read', false), step('write', true)]);
    const { agent } = await createTestAgent({
      toolSources: [remote.source],
      script: [
        reply.toolCalls([
          { name: 'read', arguments: { text: 'r' } },
          { name: 'write', arguments: { text: 'w' } },
        ]),
        reply.text('ok'),
      ],
    });
    const session = await agent.newSession();
    await (
      await session.sendMessage('go')
    ).result;
    expect(log).toEqual(['start:r', 'end:r', 'start:w', 'end:w']);
    await agent.shutdown();
  });

  it('two sources with one id are a NAME_CONFLICT at build', async () => {
    await expectAgentError(
      createTestAgent({ toolSources: [listSource('x', []).source, listSource('x', []).source] }),
      'NAME_CONFLICT',
      "'x'",
    );
  });

  it('a source without tools() is INVALID_INPUT at build', async () => {
    await expectAgentError(
      createTestAgent({ toolSources: [{ id: 'x' } as unknown as ToolSource] }),
      'INVALID_INPUT',
      'toolSources[0]',
    );
  });

  it('shutdown closes every source, bounded; failures land in unreportedErrors', async () => {
    const broken: ToolSource = {
      id: 'broken',
      tools: async () => [],
      close: () => Promise.reject(new Error('boom')),
    };
    const stuck: ToolSource = { id: 'stuck', tools: async () => [], close: () => new Promise(() => {}) };
    const fine = listSource('fine', []);
    const { agent } = await createTestAgent({
      toolSources: [broken, stuck, fine.source],
      config: { toolSourceTimeoutMs: 10 },
    });
    await agent.shutdown();
    expect(fine.closed).toEqual(['fine']);
    const messages = agent.unreportedErrors.map((e) => `${e.code} ${e.message}`);
    expect(messages).toHaveLength(2);
    expect(messages.find((m) => m.includes("'broken'"))).toContain('boom');
    expect(messages.find((m) => m.includes("'stuck'"))).toContain('10ms');
    expect(agent.unreportedErrors.every((e) => e.code === 'TOOL_SOURCE_UNAVAILABLE')).toBe(true);
  });

  it('a turn continued after a reload finds its source tools for the calls it runs again', async () => {
    const running = deferred();
    const hanging = defineTool({
      name: 'lookup',
      description: 'lookup',
      parameters: z.object({ text: z.string() }),
      execute: async () => {
        running.resolve();
        return new Promise<string>(() => {});
      },
    });
    const first = await createTestAgent({
      toolSources: [listSource('remote', [hanging]).source],
      script: [reply.toolCalls([{ name: 'lookup', arguments: { text: 'x' }, callId: 'c1' }])],
    });
    const session = await first.agent.newSession();
    await session.sendMessage('go');
    await running.promise;
    const storage = await storedAfterClose(first.sessionStorage!, session.id);

    const second = await createTestAgent({
      toolSources: [listSource('remote', [echo('lookup', 'found')]).source],
      sessionStorage: storage,
      script: [reply.text('done')],
    });
    const resumed = await second.agent.resumeSession(session.id);
    const turn = await resumed.continueTurn();
    expect((await turn.result).status).toBe('completed');
    expect(second.provider.requests[0]!.messages.filter((m) => m.type === 'tool_result')).toEqual([
      { type: 'tool_result', callId: 'c1', content: 'found:x', isError: false },
    ]);
    await second.agent.shutdown();
  });
});
