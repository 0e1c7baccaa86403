/**
 * A whole agent over real HTTP: the runtime, `OpenAIProvider` and the real `openai` SDK against
 * a local OpenAI-compatible server on 127.0.0.1 — two tool rounds in one turn, a 429 with
 * Retry-After then success, 500s exhausting the retries, and a 401 that is not retried.
 */
import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { defineTool, type Plugin } from '../../../src/index.js';
import { createTestAgent, testPlugin } from '../../support/agent.js';
import { sseEvent, startSse } from '../../support/chat-completions-server.js';
import { withChatServer } from '../../support/chat-server.js';
import { chatModel } from '../../support/models.js';

const local = withChatServer();
const model = chatModel('local', { contextWindow: 32_000 });
const base = { id: 'x', object: 'chat.completion.chunk', created: 0, model: 'local' };
const chunk = (delta: object, finish: string | null = null) =>
  sseEvent({ ...base, choices: [{ index: 0, delta, finish_reason: finish }] });
const usageChunk = (p: number, c: number) =>
  sseEvent({ ...base, choices: [], usage: { prompt_tokens: p, completion_tokens: c, total_tokens: p + c } });

function toolRound(id: string, city: string): string {
  const args = JSON.stringify({ city });
  return (
    chunk({
      role: 'assistant',
      content: null,
      tool_calls: [{ index: 0, id, type: 'function', function: { name: 'weather', arguments: '' } }],
    }) +
    chunk({ tool_calls: [{ index: 0, function: { arguments: args.slice(0, 5) } }] }) +
    chunk({ tool_calls: [{ index: 0, function: { arguments: args.slice(5) } }] }) +
    chunk({}, 'tool_calls') +
    usageChunk(10, 5) +
    'data: [DONE]\n\n'
  );
}
const answer = (text: string) =>
  chunk({ role: 'assistant', content: text }) + chunk({}, 'stop') + usageChunk(30, 7) + 'data: [DONE]\n\n';

function hookLog(log: string[]): Plugin {
  return testPlugin('log', {
    pre_request: ({ data }) => void log.push(`pre:${data.attempt}`),
    on_retry: ({ data }) => void log.push(`retry:${data.attempt}:${data.delayMs}`),
    post_request: ({ data }) => void log.push(`post:${data.attempt}:${data.finishReason}`),
    on_error: ({ data }) => void log.push(`error:${data.error.code}`),
  });
}

async function agentWith(log: string[] = [], retry = { maxRetries: 2, initialDelayMs: 1, maxDelayMs: 20 }) {
  const weather = defineTool({
    name: 'weather',
    description: 'Weather of a city',
    parameters: z.object({ city: z.string() }),
    execute: async ({ arguments: { city } }) => `${city}: sunny`,
  });
  const { agent } = await createTestAgent({
    provider: local.provider({ apiKey: 'local', models: [model] }),
    sessionStorage: null,
    config: { retry },
    tools: [weather],
    plugins: [hookLog(log)],
  });
  return agent;
}

describe('an agent over real HTTP', () => {
  it('runs two tool rounds in one turn and sends the whole history back each time', async () => {
    const script = [toolRound('call_1', 'Paris'), toolRound('call_2', 'Lyon'), answer('Both sunny.')];
    local.server.respondWith((_req, res) => {
      startSse(res);
      res.end(script.shift());
    });
    const before = local.server.requests.length;
    const agent = await agentWith();
    const session = await agent.newSession();
    const turn = await session.sendMessage('Weather in Paris, then Lyon?');
    const result = await turn.result;
    expect(result).toEqual({
      status: 'completed',
      usage: { inputTokens: 50, outputTokens: 17, totalTokens: 67 },
      cost: null,
    });
    const requests = local.server.requests.slice(before);
    expect(requests).toHaveLength(3);
    const third = requests[2]!.body['messages'] as {
      role: string;
      tool_call_id?: string;
      content?: unknown;
      tool_calls?: unknown[];
    }[];
    // The system prompt (it lists the plugin) first, then the history.
    expect(third.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'assistant', 'tool']);
    expect(third[3]).toMatchObject({ tool_call_id: 'call_1', content: 'Paris: sunny' });
    expect(third[5]).toMatchObject({ tool_call_id: 'call_2', content: 'Lyon: sunny' });
    expect((requests[0]!.body['tools'] as { function: { name: string } }[])[0]!.function.name).toBe(
      'weather',
    );
    expect(session.messages.at(-1)).toEqual({
      type: 'assistant',
      content: [{ type: 'text', text: 'Both sunny.' }],
      status: 'complete',
    });
    await agent.shutdown();
  });

  it('retries a 429 after its Retry-After, firing the request hooks per attempt', async () => {
    let calls = 0;
    local.server.respondWith((_req, res) => {
      calls++;
      if (calls === 1) {
        res
          .writeHead(429, { 'content-type': 'application/json', 'retry-after-ms': '3' })
          .end(JSON.stringify({ error: { message: 'slow down' } }));
        return;
      }
      startSse(res);
      res.end(answer('ok'));
    });
    const log: string[] = [];
    const agent = await agentWith(log);
    const session = await agent.newSession();
    const result = await (await session.sendMessage('hi')).result;
    expect(result.status).toBe('completed');
    expect(calls).toBe(2);
    expect(log).toEqual(['pre:1', 'retry:1:3', 'pre:2', 'post:2:stop']);
    await agent.shutdown();
  });

  it('gives up after maxRetries on repeated 500s, with on_error before the failure', async () => {
    let calls = 0;
    local.server.respondWith((_req, res) => {
      calls++;
      res
        .writeHead(500, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: { message: 'boom' } }));
    });
    const log: string[] = [];
    const agent = await agentWith(log, { maxRetries: 2, initialDelayMs: 1, maxDelayMs: 2 });
    const session = await agent.newSession();
    const result = await (await session.sendMessage('hi')).result;
    expect(result.status).toBe('failed');
    expect(result.error).toMatchObject({ code: 'PROVIDER_ERROR', retryable: true });
    expect(calls).toBe(3);
    expect(log.filter((l) => l.startsWith('pre'))).toEqual(['pre:1', 'pre:2', 'pre:3']);
    expect(log.at(-1)).toBe('error:PROVIDER_ERROR');
    await agent.shutdown();
  });

  it('does not retry a 401', async () => {
    let calls = 0;
    local.server.respondWith((_req, res) => {
      calls++;
      res
        .writeHead(401, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: { message: 'bad key' } }));
    });
    const agent = await agentWith();
    const session = await agent.newSession();
    const result = await (await session.sendMessage('hi')).result;
    expect(result).toMatchObject({ status: 'failed', error: { code: 'PROVIDER_ERROR', retryable: false } });
    expect(result.error?.message).toContain('bad key');
    expect(calls).toBe(1);
    await agent.shutdown();
  });
});
