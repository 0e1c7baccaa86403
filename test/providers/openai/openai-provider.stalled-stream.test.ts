/**
 * `streamIdleTimeoutMs` bounds a stalled stream for the real provider over real HTTP: headers and
 * then nothing, or no headers at all. Without it a turn waits on the HTTP client's own timeouts
 * (minutes per attempt).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentBuilder, type AgentEvent } from '../../../src/index.js';
import { OpenAIProvider } from '../../../src/openai.js';
import {
  ChatCompletionsServer,
  readFixture,
  startSse,
  streamText,
} from '../../support/chat-completions-server.js';

let server: ChatCompletionsServer;
beforeAll(async () => (server = await ChatCompletionsServer.start()));
afterAll(() => server.close());

const MODEL = {
  id: 'gpt-4o-mini',
  displayName: 'GPT-4o mini',
  contextWindow: 128_000,
  capabilities: { toolUse: true, vision: false, streaming: true },
};

async function agentOn(baseURL: string) {
  return new AgentBuilder({
    defaultModel: MODEL.id,
    streamIdleTimeoutMs: 400,
    // Room for one more stall than the test makes: a loaded machine must not fail it.
    retry: { maxRetries: 2, initialDelayMs: 0, maxDelayMs: 0 },
  })
    .registerModelProvider(new OpenAIProvider({ baseURL, apiKey: 'test', models: [MODEL] }))
    .build();
}

describe('a stalled stream over HTTP', () => {
  it.each([
    [
      'headers, then no bytes',
      (res: Parameters<Parameters<ChatCompletionsServer['respondWith']>[0]>[1]) => startSse(res),
    ],
    ['no headers at all', () => {}],
  ])('%s: the attempt fails as retryable and the retry answers', async (_, stall) => {
    let calls = 0;
    server.respondWith((req, res, body) => {
      calls++;
      if (calls === 1) return stall(res);
      return streamText(readFixture('01-openai-plain-text.sse'))(req, res, body);
    });
    const agent = await agentOn(server.baseURL);
    const session = await agent.newSession();
    const turn = await session.sendMessage('hello');
    const events: AgentEvent[] = [];
    turn.events.subscribe((e) => events.push(e));
    const result = await turn.result;
    expect(result.status).toBe('completed');
    expect(calls).toBeGreaterThanOrEqual(2);
    const retried = events.find((e) => e.payload.type === 'retry_scheduled');
    expect(retried?.payload).toMatchObject({
      attempt: 1,
      error: {
        code: 'PROVIDER_ERROR',
        retryable: true,
        message: expect.stringContaining('sent no data for 400ms'),
      },
    });
    await agent.shutdown();
  });
});
