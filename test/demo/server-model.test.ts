/**
 * The demo's server model: with `OPENAI_API_KEY` in the environment of `npm start`, the dev server
 * mounts the model proxy, and the page gets the models and a token, never the key. The plugin runs
 * in a real Vite dev server on 127.0.0.1, in front of the local Chat Completions server.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type ViteDevServer } from 'vite';
import {
  SERVER_MODEL_PATH,
  forPage,
  serverModelFromEnv,
  serverModelPlugin,
  type ServerModel,
} from '../../demo/server/server-model.js';
import { ChatCompletionsServer, sseEvent, startSse } from '../support/chat-completions-server.js';

const KEY = 'sk-demo-server-key-0123456789';

describe('serverModelFromEnv', () => {
  it('is off without OPENAI_API_KEY', () => {
    expect(serverModelFromEnv({ OPENAI_BASE_URL: 'http://127.0.0.1:1/v1', OPENAI_MODEL: 'm' })).toBeNull();
    expect(serverModelFromEnv({ OPENAI_API_KEY: '  ' })).toBeNull();
  });

  it('reads the upstream and the models, and gives the page a fresh token and not the key', () => {
    const model = serverModelFromEnv({
      OPENAI_API_KEY: KEY,
      OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1',
      OPENAI_MODELS: 'qwen3:8b, llama3.2 ,qwen3:8b',
      OPENAI_MODEL: 'ignored',
    })!;
    expect(model.proxy).toEqual({
      upstream: 'http://127.0.0.1:11434/v1',
      apiKey: KEY,
      models: ['qwen3:8b', 'llama3.2'],
      maxOutputTokens: 4_096,
    });
    expect(serverModelFromEnv({ OPENAI_API_KEY: KEY })!.proxy).toMatchObject({
      upstream: 'https://api.openai.com/v1',
      models: ['gpt-4o-mini'],
    });
    expect(serverModelFromEnv({ OPENAI_API_KEY: KEY, OPENAI_MODEL: 'gpt-4.1' })!.proxy.models).toEqual([
      'gpt-4.1',
    ]);
    expect(model.token).toMatch(/^[0-9a-f]{48}$/);
    expect(serverModelFromEnv({ OPENAI_API_KEY: KEY })!.token).not.toBe(model.token);
    expect(forPage(model)).toEqual({ models: ['qwen3:8b', 'llama3.2'], token: model.token });
    expect(JSON.stringify(forPage(model))).not.toContain(KEY);
  });
});

describe('the dev server with the server-model plugin', () => {
  let upstream: ChatCompletionsServer;
  let vite: ViteDevServer;
  let origin: string;
  let model: ServerModel;

  beforeAll(async () => {
    upstream = await ChatCompletionsServer.start();
    model = serverModelFromEnv({
      OPENAI_API_KEY: KEY,
      OPENAI_BASE_URL: upstream.baseURL,
      OPENAI_MODELS: 'm1',
    })!;
    vite = await createServer({
      configFile: false,
      root: new URL('.', import.meta.url).pathname,
      logLevel: 'silent',
      plugins: [serverModelPlugin(model)],
      server: { host: '127.0.0.1', port: 0, hmr: false, ws: false },
    });
    await vite.listen();
    origin = vite.resolvedUrls!.local[0]!.replace(/\/$/, '');
  }, 60_000);
  afterAll(async () => {
    await vite?.close();
    await upstream?.close();
  });

  const post = (token: string | null, body: unknown = { model: 'm1', messages: [] }) =>
    fetch(`${origin}${SERVER_MODEL_PATH}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(token !== null && { authorization: `Bearer ${token}` }),
      },
      body: JSON.stringify(body),
    });

  it("forwards a request with the page's token upstream, with the key instead of the token", async () => {
    upstream.respondWith((_req, res) => {
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ id: 'c1', choices: [] }));
    });
    const before = upstream.requests.length;
    const response = await post(model.token);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ id: 'c1', choices: [] });
    const [received] = upstream.requests.slice(before);
    expect(received!.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(received!.body).toMatchObject({ model: 'm1', max_completion_tokens: 4_096 });
  });

  it('streams the answer through the dev server: the first event arrives while the upstream holds the rest', async () => {
    let releaseRest!: () => void;
    const restReleased = new Promise<void>((resolve) => (releaseRest = resolve));
    let restSent = false;
    const first = sseEvent({ id: 'c1', choices: [{ index: 0, delta: { content: 'Hel' } }] });
    upstream.respondWith(async (_req, res) => {
      startSse(res);
      res.write(first);
      await restReleased;
      restSent = true;
      res.end('data: [DONE]\n\n');
    });
    const response = await post(model.token, { model: 'm1', messages: [], stream: true });
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    while (!text.endsWith('\n\n')) text += decoder.decode((await reader.read()).value, { stream: true });
    expect(text).toBe(first);
    expect(restSent).toBe(false);
    releaseRest();
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
      text += decoder.decode(chunk.value, { stream: true });
    }
    expect(text).toBe(`${first}data: [DONE]\n\n`);
  });

  it('answers 401 without the token or with another one, and calls nobody', async () => {
    const before = upstream.requests.length;
    for (const token of [null, 'not-the-token', `${model.token}x`]) {
      const response = await post(token);
      expect(response.status).toBe(401);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe('UNAUTHORIZED');
    }
    expect(upstream.requests.length).toBe(before);
  });

  it('refuses a model the server does not offer', async () => {
    const response = await post(model.token, { model: 'gpt-4.1', messages: [] });
    expect(response.status).toBe(400);
  });

  it('leaves every other path to Vite', async () => {
    const response = await fetch(`${origin}/agent/v1/models`);
    expect(response.status).toBe(404);
    expect(await response.text()).not.toContain('UNAUTHORIZED');
  });
});
