/**
 * A session that changes provider mid-conversation (a new agent on the same storage resumes it
 * with the other provider serving the model): Responses → Chat Completions → Responses, and
 * Chat Completions → Responses. Reasoning items and item ids reach only the provider and model
 * that produced them; everything else goes as plain messages and id-less calls.
 */
import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { defineTool, InMemorySessionStorage, type ModelProvider } from '../../../../src/index.js';
import { OpenAIProvider } from '../../../../src/openai.js';
import { createTestAgent } from '../../../support/agent.js';
import { sseEvent } from '../../../support/chat-completions-server.js';
import { chatModel } from '../../../support/models.js';
import { textStream } from '../../../support/responses-derived.js';
import {
  doneItems,
  readResponsesStream,
  streamBodies,
  withResponsesServer,
} from '../../../support/responses-server.js';

const local = withResponsesServer();
const calculator = defineTool({
  name: 'calculator',
  description: 'Arithmetic',
  parameters: z.object({ a: z.number(), b: z.number(), op: z.string() }),
  execute: async ({ arguments: { a, b, op } }) => String(op === 'add' ? a + b : a * b),
});
const LOOP = [1, 2, 3, 4].map((n) =>
  readResponsesStream(`vercel-openai-reasoning-encrypted-content-step${n}.sse`),
);

/** A Chat Completions answer: `text`, or one call of `calculator`. */
function chatAnswer(answer: { text: string } | { call: string; args: string }): string {
  const base = { id: 'c', object: 'chat.completion.chunk', created: 0, model: 'm' };
  const delta =
    'text' in answer
      ? { role: 'assistant', content: answer.text }
      : {
          role: 'assistant',
          content: null,
          tool_calls: [
            {
              index: 0,
              id: answer.call,
              type: 'function',
              function: { name: 'calculator', arguments: answer.args },
            },
          ],
        };
  const finish = 'text' in answer ? 'stop' : 'tool_calls';
  return (
    sseEvent({ ...base, choices: [{ index: 0, delta, finish_reason: null }] }) +
    sseEvent({ ...base, choices: [{ index: 0, delta: {}, finish_reason: finish }] }) +
    'data: [DONE]\n\n'
  );
}

const chatProvider = () =>
  new OpenAIProvider({ baseURL: local.server.baseURL, apiKey: 'sk-test-key', models: [chatModel('m')] });

async function turn(
  provider: ModelProvider,
  storage: InMemorySessionStorage,
  text: string,
  sessionId?: string,
) {
  const { agent } = await createTestAgent({ provider, tools: [calculator], sessionStorage: storage });
  const session = sessionId ? await agent.resumeSession(sessionId) : await agent.newSession();
  const result = await (await session.sendMessage(text)).result;
  expect(result.status).toBe('completed');
  await agent.shutdown();
  return session.id;
}

const ITEM_ID = /"(rs|fc|msg)_[0-9a-f]{20,}"/;

describe('switching providers mid-session', () => {
  it('Responses → Chat Completions → Responses: Chat Completions gets no items; Responses gets its own back, and the other answers as plain messages', async () => {
    const storage = new InMemorySessionStorage();
    local.server.requests.length = 0;
    local.server.respondWith(streamBodies(LOOP));
    const id = await turn(local.provider(), storage, 'Compute.');

    local.server.respondWith(
      streamBodies([
        chatAnswer({ call: 'call_cc_1', args: '{"a":2,"b":3,"op":"add"}' }),
        chatAnswer({ text: 'Five.' }),
      ]),
    );
    await turn(chatProvider(), storage, 'And 2+3?', id);
    const chat = JSON.stringify(local.server.requests[4]!.body);
    expect(local.server.requests[4]!.url).toBe('/v1/chat/completions');
    expect(chat).not.toContain('encrypted_content');
    expect(chat).not.toContain('reasoning');
    expect(chat).not.toMatch(ITEM_ID);

    local.server.respondWith(streamBodies([textStream('Done.', 'back')]));
    await turn(local.provider(), storage, 'Thanks.', id);
    const request = local.server.requests[6]!;
    expect(request.url).toBe('/v1/responses');
    const input = request.body['input'] as Record<string, unknown>[];
    // The first turn's items, all of them, verbatim and in order.
    const own = LOOP.flatMap((sse) => doneItems(sse));
    expect(input.filter((item) => own.some((o) => JSON.stringify(o) === JSON.stringify(item)))).toEqual(own);
    // The Chat Completions turn: plain text and a call without an id, its output by call_id.
    expect(input.slice(own.length + 4)).toEqual([
      { role: 'user', content: 'And 2+3?' },
      {
        type: 'function_call',
        call_id: 'call_cc_1',
        name: 'calculator',
        arguments: '{"a":2,"b":3,"op":"add"}',
      },
      { type: 'function_call_output', call_id: 'call_cc_1', output: '5' },
      { role: 'assistant', content: 'Five.' },
      { role: 'user', content: 'Thanks.' },
    ]);
  });

  it('Chat Completions → Responses, and to a Responses provider of another id: no reasoning, no item ids', async () => {
    const storage = new InMemorySessionStorage();
    local.server.requests.length = 0;
    local.server.respondWith(
      streamBodies([
        chatAnswer({ call: 'call_x', args: '{"a":1,"b":1,"op":"add"}' }),
        chatAnswer({ text: 'Two.' }),
      ]),
    );
    const id = await turn(chatProvider(), storage, '1+1?');

    local.server.respondWith(streamBodies(LOOP));
    await turn(local.provider(), storage, 'Compute.', id);
    expect(local.server.requests[2]!.body['input']).toEqual([
      { role: 'user', content: '1+1?' },
      { type: 'function_call', call_id: 'call_x', name: 'calculator', arguments: '{"a":1,"b":1,"op":"add"}' },
      { type: 'function_call_output', call_id: 'call_x', output: '2' },
      { role: 'assistant', content: 'Two.' },
      { role: 'user', content: 'Compute.' },
    ]);

    // Same model, another provider id: the stored items are not its own.
    local.server.respondWith(streamBodies([textStream('Hi.', 'other')]));
    await turn(local.provider({ id: 'other-responses' }), storage, 'Hello?', id);
    const sent = local.server.requests.at(-1)!.body;
    const text = JSON.stringify(sent['input']);
    expect(text).not.toContain('encrypted_content');
    expect(text).not.toContain('"type":"reasoning"');
    expect(text).not.toMatch(ITEM_ID);
    const calls = (sent['input'] as Record<string, unknown>[]).filter(
      (item) => item['type'] === 'function_call',
    );
    expect(calls.map((call) => Object.keys(call).sort())).toEqual(
      Array(4).fill(['arguments', 'call_id', 'name', 'type']),
    );
    expect((sent['input'] as Record<string, unknown>[]).at(-2)).toEqual({
      role: 'assistant',
      content: expect.stringContaining('The final r') as unknown,
    });
  });
});
