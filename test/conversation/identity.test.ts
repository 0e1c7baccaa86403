/**
 * Unchanged items keep their object identity between emissions, and a streamed delta changes only
 * the item it belongs to — so a long answer costs one rebuilt item per delta, whatever the length
 * of the conversation before it.
 */
import { describe, expect, it } from 'vitest';
import type { Conversation, ConversationItem } from '../../src/index.js';
import { reply } from '../../src/testing/index.js';
import { createTestAgent, recordingTool } from '../support/agent.js';
import { record } from './support.js';

/** Indexes whose item is not the same object in `after` as in `before` (new indexes included). */
function changedIndexes(before: readonly ConversationItem[], after: readonly ConversationItem[]): number[] {
  const changed: number[] = [];
  for (let i = 0; i < after.length; i++) if (before[i] !== after[i]) changed.push(i);
  return changed;
}

/** Whether `item` is an assistant answer being streamed. */
const isStreaming = (item: ConversationItem | undefined) =>
  item?.kind === 'assistant' && item.status === 'streaming';

/** The emissions of one turn: from the first delta to the last state. */
function fromFirstDelta(states: readonly Conversation[]): Conversation[] {
  const first = states.findIndex((s) =>
    s.items.some((i) => i.kind === 'assistant' && i.status === 'streaming'),
  );
  return states.slice(first);
}

describe('conversation item identity', () => {
  it('keeps unchanged items, the meter and the totals as the same objects', async () => {
    const echo = recordingTool('echo');
    const { agent } = await createTestAgent({
      tools: [echo.tool],
      script: [
        reply.toolCalls([{ name: 'echo', arguments: { text: 'a' }, callId: 'a' }], {
          usage: { inputTokens: 5, outputTokens: 1 },
        }),
        reply.text('first answer', { usage: { inputTokens: 9, outputTokens: 2 } }),
        reply.text('the second answer, streamed', { chunks: 5 }),
      ],
    });
    const session = await agent.newSession();
    await (
      await session.sendMessage('one')
    ).result;
    const recorder = record(session);
    const before = recorder.latest;
    await (
      await session.sendMessage('two')
    ).result;

    // The first turn's items are the very objects it ended with, in every later state.
    for (const state of recorder.states) {
      for (let i = 0; i < before.items.length; i++) expect(state.items[i]).toBe(before.items[i]);
    }
    // Streaming changes neither the meter nor the totals: same objects across the deltas.
    const streaming = recorder.states.filter((s) => s.items.some(isStreaming));
    expect(streaming).toHaveLength(5);
    for (const state of streaming) {
      expect(state.context).toBe(streaming[0]!.context);
      expect(state.usage).toBe(streaming[0]!.usage);
    }
    // No emission repeats its predecessor.
    for (let i = 1; i < recorder.states.length; i++)
      expect(recorder.states[i]).not.toEqual(recorder.states[i - 1]);
    await agent.shutdown();
  });

  it('a delta rebuilds only its own item: 5,000 deltas after 300 items build 5,000 items', async () => {
    const history = Array.from({ length: 150 }, (_, i) => reply.text(`answer ${i}`));
    const { agent } = await createTestAgent({
      sessionStorage: null,
      script: [...history, reply.text('x'.repeat(5_000), { chunks: 5_000 })],
    });
    const session = await agent.newSession();
    for (let i = 0; i < history.length; i++) await (await session.sendMessage(`question ${i}`)).result;
    const recorder = record(session);
    expect(recorder.latest.items).toHaveLength(300);
    await (
      await session.sendMessage('long one')
    ).result;

    const states = fromFirstDelta(recorder.states);
    // One state per delta, each differing from the one before in the streaming item alone.
    const deltas = states.filter((s) => isStreaming(s.items.at(-1)));
    expect(deltas).toHaveLength(5_000);
    const built = new Set<ConversationItem>();
    for (let i = 1; i < states.length; i++) {
      const changed = changedIndexes(states[i - 1]!.items, states[i]!.items);
      expect(changed.length).toBeLessThanOrEqual(1);
      for (const index of changed) built.add(states[i]!.items[index]!);
    }
    // Every item object built after the first delta is one state of the answer.
    expect(built.size).toBe(5_000);
    const answer = recorder.latest.items.at(-1)!;
    expect(answer).toMatchObject({ kind: 'assistant', status: 'complete' });
    expect(answer.kind === 'assistant' && answer.text.length).toBe(5_000);
    await agent.shutdown();
  });
});
