import { describe, expect, it } from 'vitest';
import { INTERRUPTED_MESSAGE_NOTE } from '../../src/prompt/templates.js';
import { reply, type ScriptItem, type ScriptStep } from '../../src/testing/index.js';
import { createTestAgent, recordingTool } from '../support/agent.js';
import { eventsOf, firstEvent, types } from '../support/events.js';
import { deferred, type Deferred } from '../support/waits.js';

const held = (until: Promise<unknown>, before: ScriptItem[] = [], after: ScriptItem[] = []): ScriptItem[] => [
  ...before,
  { type: 'wait', until },
  ...after,
  { type: 'done', finishReason: 'stop' },
];

/** A script step that answers with `items`, resolving `called` when the model is asked. */
const onCall =
  (called: Deferred<void>, items: ScriptItem[]): ScriptStep =>
  () => {
    called.resolve();
    return items;
  };

describe('cancelling a turn', () => {
  it('before the first token: aborts the request, no assistant message, one turn_cancelled', async () => {
    const g = deferred();
    const requested = deferred();
    const { agent, provider } = await createTestAgent({
      script: [onCall(requested, held(g.promise)), reply.text('next')],
    });
    const session = await agent.newSession();
    const turn = await session.sendMessage('hi');
    await requested.promise;
    turn.cancel();
    const events = await eventsOf(turn);
    expect(types(events)).toEqual(['turn_cancelled']);
    expect(await turn.result).toMatchObject({ status: 'cancelled' });
    expect(provider.aborted).toBe(1);
    expect(session.messages).toEqual([{ type: 'user', content: [{ type: 'text', text: 'hi' }] }]);
    // The session goes on.
    expect((await (await session.sendMessage('again')).result).status).toBe('completed');
    await agent.shutdown();
  });

  it('mid-stream: keeps the partial answer as incomplete with the interrupted note', async () => {
    const g = deferred();
    const { agent, provider } = await createTestAgent({
      script: [
        held(
          g.promise,
          [{ type: 'text_delta', text: 'Half an ans' }],
          [{ type: 'text_delta', text: 'never' }],
        ),
      ],
    });
    const session = await agent.newSession();
    const turn = await session.sendMessage('hi');
    await firstEvent(turn.events, 'text_delta');
    turn.cancel();
    turn.cancel(); // twice in a row is harmless
    const events = await eventsOf(turn);
    expect(types(events)).toEqual(['text_delta', 'turn_cancelled']);
    expect(provider.aborted).toBe(1);
    expect(session.messages.slice(1)).toEqual([
      { type: 'assistant', content: [{ type: 'text', text: 'Half an ans' }], status: 'incomplete' },
      { type: 'system', content: INTERRUPTED_MESSAGE_NOTE },
    ]);
    g.resolve();
    await agent.shutdown();
  });

  it('during tools: started tools finish, the rest are skipped with a result each', async () => {
    const started = deferred();
    const finish = deferred();
    const slow = recordingTool('slow', {
      mutating: true,
      run: async (t) => {
        started.resolve();
        await finish.promise;
        return t;
      },
    });
    const { agent, provider } = await createTestAgent({
      tools: [slow.tool],
      script: [
        reply.toolCalls([
          { name: 'slow', arguments: { text: 'first' }, callId: 'a' },
          { name: 'slow', arguments: { text: 'second' }, callId: 'b' },
        ]),
        reply.text('unused'),
      ],
    });
    const session = await agent.newSession();
    const turn = await session.sendMessage('go');
    await started.promise;
    turn.cancel();
    finish.resolve();
    const events = await eventsOf(turn);
    expect((await turn.result).status).toBe('cancelled');
    expect(slow.log).toEqual(['start:first', 'end:first']);
    expect(provider.calls).toBe(1);
    const results = session.messages.filter((m) => m.type === 'tool_result');
    expect(results.map((r) => [r.callId, r.isError])).toEqual([
      ['a', false],
      ['b', true],
    ]);
    expect(types(events).at(-1)).toBe('turn_cancelled');
    expect(types(events).filter((t) => t === 'tool_call_end')).toHaveLength(1);
    await agent.shutdown();
  });

  it('during compaction: the summary request is aborted and the turn ends cancelled', async () => {
    const g = deferred();
    const summarising = deferred();
    const { agent, provider } = await createTestAgent({
      config: {
        compaction: { reservedOutputTokens: 0, bufferTokens: 0, thresholdRatio: 0.01, keepRecentRatio: 0.01 },
      },
      script: [reply.text('x'.repeat(8_000)), onCall(summarising, held(g.promise))],
    });
    const session = await agent.newSession();
    await (
      await session.sendMessage('one')
    ).result;
    const turn = await session.sendMessage('two');
    await summarising.promise;
    expect(provider.calls).toBe(2);
    expect(provider.requests[1]!.purpose).toBe('compaction');
    turn.cancel();
    expect((await turn.result).status).toBe('cancelled');
    expect(provider.aborted).toBe(1);
    expect(session.messages.at(-1)).toEqual({ type: 'user', content: [{ type: 'text', text: 'two' }] });
    await agent.shutdown();
  });

  it('resume after a cancelled turn gives the same messages as the live session', async () => {
    const g = deferred();
    const { agent } = await createTestAgent({
      script: [reply.text('first answer'), held(g.promise, [{ type: 'text_delta', text: 'partial' }])],
    });
    const session = await agent.newSession();
    await (
      await session.sendMessage('one')
    ).result;
    const turn = await session.sendMessage('two');
    await firstEvent(turn.events, 'text_delta');
    turn.cancel();
    await turn.result;
    const live = [...session.messages];
    await session.close();
    const resumed = await agent.resumeSession(session.id);
    expect(resumed.messages).toEqual(live);
    await agent.shutdown();
  });
});
