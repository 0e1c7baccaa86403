import { describe, expect, it } from 'vitest';
import { INTERRUPTED_MESSAGE_NOTE } from '../../src/prompt/templates.js';
import { reply, type ScriptItem } from '../../src/testing/index.js';
import { createTestAgent, eventsOf, gate, recordingTool, types } from './support.js';

const held = (until: Promise<unknown>, before: ScriptItem[] = [], after: ScriptItem[] = []): ScriptItem[] => [
  ...before,
  { type: 'wait', until },
  ...after,
  { type: 'done', finishReason: 'stop' },
];

/** Waits until `predicate` holds for the session's messages or events (polling the event loop). */
async function until(predicate: () => boolean) {
  for (let i = 0; i < 500 && !predicate(); i++) await new Promise((r) => setTimeout(r, 2));
  if (!predicate()) throw new Error('condition not reached');
}

describe('cancelling a turn', () => {
  it('before the first token: aborts the request, no assistant message, one turn_cancelled', async () => {
    const g = gate();
    const { agent, provider } = await createTestAgent({ script: [held(g.promise), reply.text('next')] });
    const session = await agent.newSession();
    const turn = await session.sendMessage('hi');
    await until(() => provider.calls === 1);
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
    const g = gate();
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
    const seen: string[] = [];
    turn.events.subscribe((e) => seen.push(e.payload.type));
    await until(() => seen.includes('text_delta'));
    turn.cancel();
    turn.cancel(); // twice in a row is harmless
    const events = await eventsOf(turn);
    expect(types(events)).toEqual(['text_delta', 'turn_cancelled']);
    expect(provider.aborted).toBe(1);
    expect(session.messages.slice(1)).toEqual([
      { type: 'assistant', content: [{ type: 'text', text: 'Half an ans' }], status: 'incomplete' },
      { type: 'system', content: INTERRUPTED_MESSAGE_NOTE },
    ]);
    g.release();
    await agent.shutdown();
  });

  it('during tools: started tools finish, the rest are skipped with a result each', async () => {
    const started = gate();
    const finish = gate();
    const slow = recordingTool('slow', {
      mutating: true,
      run: async (t) => {
        started.release();
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
    finish.release();
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
    const g = gate();
    const { agent, provider } = await createTestAgent({
      config: {
        compaction: { reservedOutputTokens: 0, bufferTokens: 0, thresholdRatio: 0.01, keepRecentRatio: 0.01 },
      },
      script: [reply.text('x'.repeat(8_000)), held(g.promise)],
    });
    const session = await agent.newSession();
    await (
      await session.sendMessage('one')
    ).result;
    const turn = await session.sendMessage('two');
    await until(() => provider.calls === 2);
    expect(provider.requests[1]!.purpose).toBe('compaction');
    turn.cancel();
    expect((await turn.result).status).toBe('cancelled');
    expect(provider.aborted).toBe(1);
    expect(session.messages.at(-1)).toEqual({ type: 'user', content: [{ type: 'text', text: 'two' }] });
    await agent.shutdown();
  });

  it('resume after a cancelled turn gives the same messages as the live session', async () => {
    const g = gate();
    const { agent } = await createTestAgent({
      script: [reply.text('first answer'), held(g.promise, [{ type: 'text_delta', text: 'partial' }])],
    });
    const session = await agent.newSession();
    await (
      await session.sendMessage('one')
    ).result;
    const turn = await session.sendMessage('two');
    const seen: string[] = [];
    turn.events.subscribe((e) => seen.push(e.payload.type));
    await until(() => seen.includes('text_delta'));
    turn.cancel();
    await turn.result;
    const live = [...session.messages];
    await session.close();
    const resumed = await agent.resumeSession(session.id);
    expect(resumed.messages).toEqual(live);
    await agent.shutdown();
  });
});
