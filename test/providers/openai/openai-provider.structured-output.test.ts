/**
 * Structured output over real HTTP: `OpenAIProvider` (through the real `openai` SDK, against a
 * local OpenAI-compatible server on 127.0.0.1) emits `tool_call_delta` while the `final_answer`
 * call's arguments stream, so the turn shows the partial object before the validated output.
 */
import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import type { ChatEvent } from '../../../src/index.js';
import { createTestAgent } from '../../support/agent.js';
import { collect, sseEvent, streamText } from '../../support/chat-completions-server.js';
import { withChatServer } from '../../support/chat-server.js';
import { eventsOf, types } from '../../support/events.js';
import { chatModel, chatRequest } from '../../support/models.js';

const local = withChatServer();
const model = chatModel('local', { contextWindow: 32_000 });
const base = { id: 'x', object: 'chat.completion.chunk', created: 0, model: 'local' };
const chunk = (delta: object, finish: string | null = null) =>
  sseEvent({ ...base, choices: [{ index: 0, delta, finish_reason: finish }] });

const ARGS = JSON.stringify({ city: 'Kyoto', days: 3 });
const PIECES = [ARGS.slice(0, 9), ARGS.slice(9, 17), ARGS.slice(17)];
const finalAnswerStream =
  chunk({
    role: 'assistant',
    content: null,
    tool_calls: [
      { index: 0, id: 'call_f', type: 'function', function: { name: 'final_answer', arguments: '' } },
    ],
  }) +
  PIECES.map((piece) => chunk({ tool_calls: [{ index: 0, function: { arguments: piece } }] })).join('') +
  chunk({}, 'tool_calls') +
  'data: [DONE]\n\n';

describe('OpenAIProvider and structured output', () => {
  it('emits tool_call_delta as the arguments stream, then the whole call', async () => {
    local.server.respondWith(streamText(finalAnswerStream));
    const provider = local.provider({ apiKey: 'local', models: [model] });
    const { events, error } = await collect(
      provider.chat(chatRequest('local'), new AbortController().signal),
    );
    expect(error).toBeUndefined();
    expect(events).toEqual<ChatEvent[]>([
      { type: 'tool_call_delta', index: 0, callId: 'call_f', toolName: 'final_answer', argumentsDelta: '' },
      ...PIECES.map((argumentsDelta): ChatEvent => ({ type: 'tool_call_delta', index: 0, argumentsDelta })),
      { type: 'tool_call', callId: 'call_f', toolName: 'final_answer', arguments: ARGS },
      expect.objectContaining({ type: 'done', finishReason: 'tool_calls' }),
    ]);
  });

  it('a turn over HTTP shows partials, then the validated output', async () => {
    local.server.respondWith(streamText(finalAnswerStream));
    const { agent } = await createTestAgent({
      provider: local.provider({ apiKey: 'local', models: [model] }),
      sessionStorage: null,
    });
    const session = await agent.newSession();
    const schema = z.object({ city: z.string(), days: z.number() });
    const turn = await session.sendMessage('Plan a trip', { output: { schema } });
    const result = await turn.result;
    expect(result).toMatchObject({ status: 'completed', output: { city: 'Kyoto', days: 3 } });
    const events = await eventsOf(turn);
    // The first piece always parses (`{"city":"` is `{ city: '' }`); later ones may fall within 50 ms.
    const first = events.find((e) => e.payload.type === 'output_delta');
    expect(first?.payload).toEqual({ type: 'output_delta', partial: { city: '' } });
    expect(types(events).slice(-2)).toEqual(['output', 'turn_complete']);
    // The request offered the tool on the wire.
    const body = local.server.requests.at(-1)!.body as { tools: { function: { name: string } }[] };
    expect(body.tools.map((t) => t.function.name)).toContain('final_answer');
    await agent.shutdown();
  });
});
