/**
 * The handler's `modelProxy` option: `POST {basePath}/v1/chat/completions` is the proxy, behind
 * the handler's own `authorize`; without the option that path is an unknown route.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChatCompletionsServer } from '../support/chat-completions-server.js';
import { ScriptedModelProvider } from '../../src/testing/index.js';
import { startHandler, type RunningServer } from './support.js';

const SERVER_KEY = 'sk-handler-proxy-secret-0123456789';
let upstream: ChatCompletionsServer;
let withProxy: RunningServer;
let withoutProxy: RunningServer;

beforeAll(async () => {
  upstream = await ChatCompletionsServer.start();
  const factory = { provider: new ScriptedModelProvider({ script: [] }) };
  withProxy = await startHandler(factory, {
    modelProxy: {
      upstream: upstream.baseURL,
      apiKey: SERVER_KEY,
      models: ['gpt-4o-mini'],
      maxOutputTokens: 100,
    },
  });
  withoutProxy = await startHandler(factory);
});
afterAll(async () => {
  await Promise.all([withProxy.close(), withoutProxy.close(), upstream.close()]);
});

const post = (server: RunningServer, body: unknown, authorization?: string) =>
  fetch(`${server.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(authorization && { authorization }) },
    body: JSON.stringify(body),
  });

const chat = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], max_tokens: 5_000 };

describe("the handler's model proxy", () => {
  it('forwards an authorized request with the server key, clamped', async () => {
    upstream.respondWith((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"id":"c1","choices":[]}');
    });
    const before = upstream.requests.length;
    const response = await post(withProxy, chat, 'Bearer alice');
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ id: 'c1', choices: [] });
    const sent = upstream.requests.slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.headers.authorization).toBe(`Bearer ${SERVER_KEY}`);
    expect(sent[0]!.body.max_tokens).toBe(100);
  });

  it('answers 401 without authorization, and sends nothing upstream', async () => {
    const before = upstream.requests.length;
    const response = await post(withProxy, chat);
    expect(response.status).toBe(401);
    expect((await response.json()).error.code).toBe('UNAUTHORIZED');
    expect(upstream.requests.length).toBe(before);
  });

  it('refuses an unlisted model with 400', async () => {
    const response = await post(withProxy, { ...chat, model: 'gpt-5-pro' }, 'Bearer alice');
    expect(response.status).toBe(400);
    expect((await response.json()).error.code).toBe('INVALID_INPUT');
  });

  it('is an unknown route (404) on a handler without modelProxy', async () => {
    const before = upstream.requests.length;
    const response = await post(withoutProxy, chat, 'Bearer alice');
    expect(response.status).toBe(404);
    expect((await response.json()).error.code).toBe('INVALID_INPUT');
    expect(upstream.requests.length).toBe(before);
  });
});
