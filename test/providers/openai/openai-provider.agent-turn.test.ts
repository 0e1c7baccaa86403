/**
 * The README's example: an agent on `OpenAIProvider` pointed at a local OpenAI-compatible
 * server runs a turn end to end (real SDK, real HTTP), and the runtime retries a 503 the
 * provider marked retryable, honouring its Retry-After.
 */
import { describe, expect, it } from 'vitest';
import type { AgentEventPayload } from '../../../src/types.js';
import { createTestAgent, testPlugin } from '../../support/agent.js';
import { readFixture, startSse, writeInPieces } from '../../support/chat-completions-server.js';
import { withChatServer } from '../../support/chat-server.js';
import { chatModel } from '../../support/models.js';

const local = withChatServer();
const pricing = { inputPerMillion: 1, outputPerMillion: 2 };

function localProvider() {
  return local.provider({
    apiKey: 'ollama',
    maxTokensField: 'max_tokens',
    models: [chatModel('qwen3:8b', { contextWindow: 40_960, pricing })],
  });
}

describe('an agent on OpenAIProvider', () => {
  it('streams a turn from a local server: text deltas, usage with cost, completion', async () => {
    local.server.respondWith(async (_req, res) => {
      startSse(res);
      await writeInPieces(res, readFixture('02-openai-text-include-usage.sse'));
      res.end();
    });
    const { agent } = await createTestAgent({ provider: localProvider(), sessionStorage: null });
    const session = await agent.newSession();
    const turn = await session.sendMessage('Which ocean is the largest between Africa and South America?');
    const payloads: AgentEventPayload[] = [];
    turn.events.subscribe(({ payload }) => payloads.push(payload));
    const result = await turn.result;
    await agent.shutdown();

    expect(result.status).toBe('completed');
    expect(result.usage).toMatchObject({ inputTokens: 22, outputTokens: 4, totalTokens: 26 });
    expect(payloads.map((p) => (p.type === 'text_delta' ? p.text : '')).join('')).toBe('Atlantic Ocean.');
    expect(payloads.find((p) => p.type === 'usage')).toMatchObject({ cost: (22 * 1 + 4 * 2) / 1e6 });
    expect(payloads.at(-1)).toMatchObject({ type: 'turn_complete', finishReason: 'stop' });
    const sent = local.server.requests.at(-1)?.body;
    expect(sent?.['model']).toBe('qwen3:8b');
    expect(sent?.['stream']).toBe(true);
  });

  it('is retried by the runtime after a retryable 503, waiting what Retry-After said', async () => {
    let calls = 0;
    local.server.respondWith(async (_req, res) => {
      calls += 1;
      if (calls === 1) {
        res.writeHead(503, { 'content-type': 'application/json', 'retry-after-ms': '5' });
        res.end(JSON.stringify({ error: { message: 'model is loading' } }));
        return;
      }
      startSse(res);
      await writeInPieces(res, readFixture('01-openai-plain-text.sse'));
      res.end();
    });
    const retryDelays: unknown[] = [];
    const { agent } = await createTestAgent({
      provider: localProvider(),
      sessionStorage: null,
      config: { retry: { maxRetries: 2, initialDelayMs: 1, maxDelayMs: 50 } },
      plugins: [
        testPlugin('retry-observer', { on_retry: ({ data }) => void retryDelays.push(data.delayMs) }),
      ],
    });
    const session = await agent.newSession();
    const turn = await session.sendMessage('Where is the Falklands?');
    const result = await turn.result;
    await agent.shutdown();

    expect(result.status).toBe('completed');
    expect(calls).toBe(2);
    expect(retryDelays).toEqual([5]);
  });
});
