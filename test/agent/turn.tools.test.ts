import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { defineTool } from '../../src/index.js';
import { reply } from '../../src/testing/index.js';
import { createTestAgent, recordingTool } from '../support/agent.js';
import { eventsOf, types } from '../support/events.js';
import { meeting, promiseJobsRun } from '../support/waits.js';

describe('tool batches through the public API', () => {
  it('runs read-only tools concurrently and feeds results back in call order', async () => {
    // Each tool finishes only once both have started: run one after the other, they never would.
    const meet = meeting(2);
    const together = async (t: string) => {
      await meet();
      return `${t}:together`;
    };
    const a = recordingTool('read_a', { run: together });
    const b = recordingTool('read_b', { run: together });
    const { agent, provider } = await createTestAgent({
      tools: [a.tool, b.tool],
      script: [
        reply.toolCalls([
          { name: 'read_a', arguments: { text: 'x' }, callId: 'c1' },
          { name: 'read_b', arguments: { text: 'y' }, callId: 'c2' },
        ]),
        reply.text('both done'),
      ],
    });
    const session = await agent.newSession();
    const turn = await session.sendMessage('go');
    const events = await eventsOf(turn);
    expect((await turn.result).status).toBe('completed');
    // Both were running at once: each saw the other arrive.
    const results = provider.requests[1]!.messages.filter((m) => m.type === 'tool_result');
    expect(results).toEqual([
      { type: 'tool_result', callId: 'c1', content: 'x:together', isError: false },
      { type: 'tool_result', callId: 'c2', content: 'y:together', isError: false },
    ]);
    expect(types(events).filter((t) => t.startsWith('tool_call'))).toEqual([
      'tool_call_start',
      'tool_call_start',
      'tool_call_end',
      'tool_call_end',
    ]);
    await agent.shutdown();
  });

  it('runs a batch that contains a mutating tool serially, in call order', async () => {
    const log: string[] = [];
    const slow = recordingTool('read_slow', {
      run: async (t) => {
        log.push(`start:${t}`);
        // Every promise job runs first: a concurrent batch would have started the next call by now.
        await promiseJobsRun();
        log.push(`end:${t}`);
        return t;
      },
    });
    const write = recordingTool('write', {
      mutating: true,
      run: async (t) => {
        log.push(`start:${t}`);
        log.push(`end:${t}`);
        return t;
      },
    });
    const { agent } = await createTestAgent({
      tools: [slow.tool, write.tool],
      script: [
        reply.toolCalls([
          { name: 'read_slow', arguments: { text: 'r1' } },
          { name: 'write', arguments: { text: 'w' } },
          { name: 'read_slow', arguments: { text: 'r2' } },
        ]),
        reply.text('ok'),
      ],
    });
    const session = await agent.newSession();
    await (
      await session.sendMessage('go')
    ).result;
    expect(log).toEqual(['start:r1', 'end:r1', 'start:w', 'end:w', 'start:r2', 'end:r2']);
    await agent.shutdown();
  });

  it('turns tool problems into error results the model reads, and the turn goes on', async () => {
    const echo = recordingTool('echo');
    const boom = recordingTool('boom', {
      run: async () => {
        throw new Error('disk on fire');
      },
    });
    const { agent, provider } = await createTestAgent({
      tools: [echo.tool, boom.tool],
      script: [
        reply.toolCalls([
          { name: 'nope', arguments: {}, callId: 'unknown' },
          { name: 'echo', arguments: '{not json', callId: 'badjson' },
          { name: 'echo', arguments: { text: 42 }, callId: 'badschema' },
          { name: 'boom', arguments: { text: 'x' }, callId: 'throws' },
        ]),
        reply.text('handled'),
      ],
    });
    const session = await agent.newSession();
    const turn = await session.sendMessage('go');
    expect((await turn.result).status).toBe('completed');
    const results = provider.requests[1]!.messages.filter((m) => m.type === 'tool_result');
    expect(results.map((r) => [r.callId, r.isError])).toEqual([
      ['unknown', true],
      ['badjson', true],
      ['badschema', true],
      ['throws', true],
    ]);
    const byId = Object.fromEntries(results.map((r) => [r.callId, r.content]));
    expect(byId.unknown).toContain('nope');
    expect(byId.badschema).toContain('text');
    expect(byId.throws).toContain('disk on fire');
    // Invalid JSON keeps the raw string as the call's arguments (history, wire and storage).
    const badCall = session.messages.find((m) => m.type === 'tool_call' && m.callId === 'badjson');
    expect(badCall).toMatchObject({ arguments: '{not json' });
    expect(echo.log).toEqual([]);
    await agent.shutdown();
  });

  it('stops at the tool-call limit: note to the model, non-fatal error, no further request', async () => {
    const echo = recordingTool('echo');
    const { agent, provider } = await createTestAgent({
      tools: [echo.tool],
      config: { maxToolCallsPerTurn: 3 },
      script: [
        reply.toolCalls([
          { name: 'echo', arguments: { text: '1' } },
          { name: 'echo', arguments: { text: '2' } },
        ]),
        reply.toolCalls([
          { name: 'echo', arguments: { text: '3' } },
          { name: 'echo', arguments: { text: '4' } },
        ]),
        reply.text('never requested'),
      ],
    });
    const session = await agent.newSession();
    const turn = await session.sendMessage('go');
    const events = await eventsOf(turn);
    // The batch that crosses the limit runs in full.
    expect(echo.log.filter((l) => l.startsWith('end'))).toHaveLength(4);
    expect(provider.calls).toBe(2);
    const error = events.find((e) => e.payload.type === 'error')!.payload;
    expect(error).toMatchObject({ error: { code: 'MAX_TOOL_CALLS_EXCEEDED' }, fatal: false });
    expect(events.at(-1)!.payload).toMatchObject({ type: 'turn_complete', finishReason: 'max_tool_calls' });
    expect(session.messages.at(-1)).toMatchObject({ type: 'system' });
    expect((session.messages.at(-1) as { content: string }).content).toContain('3');
    await agent.shutdown();
  });

  it('treats blank arguments as no arguments, in the history and in the call alike', async () => {
    const calls: unknown[] = [];
    const now = defineTool({
      name: 'now',
      description: 'no parameters',
      parameters: z.object({}),
      execute: async ({ arguments: args }) => {
        calls.push(args);
        return 'noon';
      },
    });
    const { agent } = await createTestAgent({
      tools: [now],
      script: [reply.toolCalls([{ name: 'now', arguments: '', callId: 'c' }]), reply.text('ok')],
    });
    const session = await agent.newSession();
    await (
      await session.sendMessage('time?')
    ).result;
    expect(calls).toEqual([{}]);
    expect(session.messages.find((m) => m.type === 'tool_call')).toMatchObject({ arguments: {} });
    expect(session.messages.find((m) => m.type === 'tool_result')).toMatchObject({
      content: 'noon',
      isError: false,
    });
    await agent.shutdown();
  });
});
