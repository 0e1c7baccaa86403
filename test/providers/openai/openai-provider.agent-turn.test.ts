/**
 * The README's example: an agent on `OpenAIProvider` pointed at a local OpenAI-compatible
 * server runs a turn end to end (real SDK, real HTTP), and the runtime retries a 503 the
 * provider marked retryable, honouring its Retry-After.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentBuilder } from '../../../src/builder.js';
import { OpenAIProvider } from '../../../src/providers/openai/openai-provider.js';
import type { AgentEventPayload } from '../../../src/types.js';
import {
  ChatCompletionsServer,
  readFixture,
  startSse,
  writeInPieces,
} from '../../support/chat-completions-server.js';

let server: ChatCompletionsServer;
beforeAll(async () => {
  server = await ChatCompletionsServer.start();
});
afterAll(() => server.close());

function localProvider() {
  return new OpenAIProvider({
    baseURL: server.baseURL,
    apiKey: 'ollama',
    maxTokensField: 'max_tokens',
    models: [
      {
        id: 'qwen3:8b',
        displayName: 'Qwen3 8B',
        contextWindow: 40_960,
        capabilities: { toolUse: true, vision: false, streaming: true },
        pricing: { inputPerMillion: 1, outputPerMillion: 2 },
      },
    ],
  });
}

describe('an agent on OpenAIProvider', () => {
  it('streams a turn from a local server: text deltas, usage with cost, completion', async () => {
    server.respondWith(async (_req, res) => {
      startSse(res);
      await writeInPieces(res, readFixture('02-openai-text-include-usage.sse'));
      res.end();
    });
    const agent = await new AgentBuilder({ defaultModel: 'qwen3:8b' })
      .registerModelProvider(localProvider())
      .build();
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
    const sent = server.requests.at(-1)?.body;
    expect(sent?.['model']).toBe('qwen3:8b');
    expect(sent?.['stream']).toBe(true);
  });

  it('is retried by the runtime after a retryable 503, waiting what Retry-After said', async () => {
    let calls = 0;
    server.respondWith(async (_req, res) => {
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
    const agent = await new AgentBuilder({
      defaultModel: 'qwen3:8b',
      retry: { maxRetries: 2, initialDelayMs: 1, maxDelayMs: 50 },
    })
      .registerModelProvider(localProvider())
      .registerPlugin({
        id: 'retry-observer',
        displayName: 'Retry observer',
        description: 'records on_retry',
        apply(ctx) {
          ctx.tap('on_retry', ({ data }) => {
            retryDelays.push((data as { delayMs: number }).delayMs);
          });
        },
      })
      .build();
    const session = await agent.newSession();
    const turn = await session.sendMessage('Where is the Falklands?');
    const result = await turn.result;
    await agent.shutdown();

    expect(result.status).toBe('completed');
    expect(calls).toBe(2);
    expect(retryDelays).toEqual([5]);
  });
});
