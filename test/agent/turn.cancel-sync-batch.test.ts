/**
 * A cancel asked for from a `tool_call_start` or `tool_call_end` subscriber skips every call of
 * the batch that has not started — also a call that fails before any wait (an unknown tool,
 * arguments that are not JSON): no `tool_call_start` follows the cancel, and the call gets the
 * skipped result. Found by the property suite (`PROPERTY_SEED=32` and `33`, 2,500 runs).
 */
import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { AgentBuilder, defineTool, type AgentEvent, type AgentEventPayload } from '../../src/index.js';
import { TOOL_CALL_SKIPPED_TEXT } from '../../src/prompt/tool-result-texts.js';
import {
  ScriptedModelProvider,
  SCRIPTED_MODEL,
  reply,
  type ScriptedToolCall,
} from '../../src/testing/index.js';

const readNote = defineTool({
  name: 'read_note',
  description: 'Reads a note',
  parameters: z.object({ text: z.string() }),
  execute: async () => 'a note',
});

/** Runs one read-only batch of `calls`, cancelling from the subscriber of `on` for the first call. */
async function cancelInBatch(calls: ScriptedToolCall[], on: 'tool_call_start' | 'tool_call_end') {
  const provider = new ScriptedModelProvider({ script: [reply.toolCalls(calls)] });
  const agent = await new AgentBuilder({ defaultModel: SCRIPTED_MODEL.id })
    .registerModelProvider(provider)
    .registerTool(readNote)
    .build();
  const session = await agent.newSession();
  const turn = await session.sendMessage('read the notes');
  const events: AgentEvent[] = [];
  let cancelledAfter = -1;
  turn.events.subscribe((event) => {
    events.push(event);
    if (cancelledAfter === -1 && event.payload.type === on) {
      cancelledAfter = events.length;
      turn.cancel();
    }
  });
  const result = await turn.result;
  const later = events.slice(cancelledAfter).map((e) => e.payload.type);
  const results = session.messages.flatMap((m) => (m.type === 'tool_result' ? [m] : []));
  await agent.shutdown();
  return { result, later, results };
}

const startsOrEnds = (types: AgentEventPayload['type'][]) =>
  types.filter((t) => t === 'tool_call_start' || t === 'tool_call_end');

describe('a cancel from a tool event subscriber', () => {
  it.each(['tool_call_start', 'tool_call_end'] as const)(
    'skips a later unknown-tool call of the batch (cancel on %s)',
    async (on) => {
      const { result, later, results } = await cancelInBatch(
        [
          { name: 'no_such_tool', arguments: {}, callId: 'call_a' },
          { name: 'no_such_tool', arguments: {}, callId: 'call_b' },
        ],
        on,
      );
      expect(result.status).toBe('cancelled');
      expect(startsOrEnds(later)).toEqual(on === 'tool_call_start' ? ['tool_call_end'] : []);
      expect(results.find((r) => r.callId === 'call_b')?.content).toBe(TOOL_CALL_SKIPPED_TEXT);
    },
  );

  it('skips a later call whose arguments are not JSON', async () => {
    const { later, results } = await cancelInBatch(
      [
        { name: 'no_such_tool', arguments: {}, callId: 'call_a' },
        { name: 'read_note', arguments: '{"text": ', callId: 'call_b' },
      ],
      'tool_call_start',
    );
    expect(startsOrEnds(later)).toEqual(['tool_call_end']);
    expect(results.find((r) => r.callId === 'call_b')?.content).toBe(TOOL_CALL_SKIPPED_TEXT);
  });

  it('skips a later valid call (it waits for its validation first)', async () => {
    const { later, results } = await cancelInBatch(
      [
        { name: 'no_such_tool', arguments: {}, callId: 'call_a' },
        { name: 'read_note', arguments: { text: 'x' }, callId: 'call_b' },
      ],
      'tool_call_start',
    );
    expect(startsOrEnds(later)).toEqual(['tool_call_end']);
    expect(results.find((r) => r.callId === 'call_b')?.content).toBe(TOOL_CALL_SKIPPED_TEXT);
  });
});
