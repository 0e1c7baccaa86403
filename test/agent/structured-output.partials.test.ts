/**
 * Partial structured output: while a provider streams the `final_answer` call's arguments
 * (`tool_call_delta`), the turn emits the object so far as `output_delta` — at most every 50 ms on
 * the agent's clock, and only when the text grew — then the validated `output`.
 */
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { FINAL_ANSWER_TOOL, type ChatEvent, type ModelProvider } from '../../src/index.js';
import { reply, SCRIPTED_MODEL } from '../../src/testing/index.js';
import { ManualClock } from '../runtime/manual-clock.js';
import { createTestAgent } from '../support/agent.js';
import { eventsOf, types } from '../support/events.js';

const Plan = z.object({ title: z.string(), stops: z.array(z.string()) });
const ANSWER = { title: 'A day in Kyoto', stops: ['Fushimi Inari', 'Kiyomizu-dera', 'Gion at night'] };

/** Streams the answer's arguments one character per delta, `stepMs` apart on `clock`. */
function streamingProvider(
  clock: ManualClock,
  stepMs: number,
  deltaText = (t: string) => [...t],
): ModelProvider {
  return {
    id: 'streaming',
    models: [SCRIPTED_MODEL],
    async *chat(): AsyncGenerator<ChatEvent> {
      const text = JSON.stringify(ANSWER);
      let first = true;
      for (const piece of deltaText(text)) {
        clock.advance(stepMs);
        yield first
          ? {
              type: 'tool_call_delta',
              index: 0,
              callId: 'c1',
              toolName: FINAL_ANSWER_TOOL,
              argumentsDelta: piece,
            }
          : { type: 'tool_call_delta', index: 0, argumentsDelta: piece };
        first = false;
      }
      yield { type: 'tool_call', callId: 'c1', toolName: FINAL_ANSWER_TOOL, arguments: text };
      yield { type: 'done', finishReason: 'tool_calls' };
    },
  };
}

describe('partial structured output', () => {
  it('emits at most duration / 50 ms + 2 partials, each growing, then the output', async () => {
    const clock = new ManualClock();
    const stepMs = 7;
    const { agent } = await createTestAgent({
      provider: streamingProvider(clock, stepMs),
      config: { clock },
    });
    const session = await agent.newSession();
    const turn = await session.sendMessage('Plan my day', { output: { schema: Plan } });
    expect((await turn.result).output).toEqual(ANSWER);

    const events = await eventsOf(turn);
    const deltas = events.filter((e) => e.payload.type === 'output_delta');
    const duration = JSON.stringify(ANSWER).length * stepMs;
    expect(deltas.length).toBeGreaterThan(5);
    expect(deltas.length).toBeLessThanOrEqual(duration / 50 + 2);
    // At least 50 ms apart on the agent's clock.
    const times = deltas.map((e) => Date.parse(e.timestamp));
    for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(50);
    // Each partial extends the one before (the text only grows); the last shows most of the answer.
    const partials = deltas.map(
      (e) => (e.payload as { partial: { title?: string; stops?: string[] } }).partial,
    );
    for (let i = 1; i < partials.length; i++) {
      expect((partials[i]!.title ?? '').startsWith(partials[i - 1]!.title ?? '')).toBe(true);
      expect((partials[i]!.stops ?? []).length).toBeGreaterThanOrEqual((partials[i - 1]!.stops ?? []).length);
    }
    expect(partials.at(-1)).toMatchObject({ title: ANSWER.title });
    expect(types(events).slice(-2)).toEqual(['output', 'turn_complete']);
    expect(types(events).indexOf('output')).toBeGreaterThan(types(events).lastIndexOf('output_delta'));
    await agent.shutdown();
  });

  it('deltas that add no text emit nothing', async () => {
    const clock = new ManualClock();
    // Every other delta is empty; 100 ms apart, so the throttle would let each one through.
    const pieces = (t: string) => [...t].flatMap((c) => [c, '']);
    const { agent } = await createTestAgent({
      provider: streamingProvider(clock, 100, pieces),
      config: { clock },
    });
    const session = await agent.newSession();
    const turn = await session.sendMessage('Plan my day', { output: { schema: Plan } });
    await turn.result;
    const deltas = (await eventsOf(turn)).filter((e) => e.payload.type === 'output_delta');
    // One per character at most (the first, `{`, already parses), never one per empty delta.
    expect(deltas.length).toBeLessThanOrEqual(JSON.stringify(ANSWER).length);
    expect(deltas.length).toBeGreaterThan(10);
    await agent.shutdown();
  });

  it('a provider that streams no deltas gives only the output', async () => {
    const { agent } = await createTestAgent({
      script: [reply.toolCalls([{ name: FINAL_ANSWER_TOOL, arguments: ANSWER }])],
    });
    const session = await agent.newSession();
    const turn = await session.sendMessage('Plan', { output: { schema: Plan } });
    await turn.result;
    expect(types(await eventsOf(turn))).not.toContain('output_delta');
    await agent.shutdown();
  });

  it('ScriptedModelProvider scripts the deltas with argumentChunks', async () => {
    const { agent, provider } = await createTestAgent({
      script: [reply.toolCalls([{ name: FINAL_ANSWER_TOOL, arguments: ANSWER }], { argumentChunks: 4 })],
    });
    const session = await agent.newSession();
    const turn = await session.sendMessage('Plan', { output: { schema: Plan } });
    await turn.result;
    const events = await eventsOf(turn);
    // Four deltas: at least the first is parsed, at most each of them.
    const partials = types(events).filter((t) => t === 'output_delta').length;
    expect(partials).toBeGreaterThanOrEqual(1);
    expect(partials).toBeLessThanOrEqual(4);
    expect(provider.calls).toBe(1);
    await agent.shutdown();
  });
});
