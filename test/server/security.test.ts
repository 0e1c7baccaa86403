/**
 * Who may see what, by raw HTTP against the handler on 127.0.0.1: every route without
 * authorization is 401 and changes nothing; another user's session is 404 on every route,
 * changes nothing and is not listed — also when all users share one storage (the owner record is
 * the wall, not only the namespace); malformed JSON is 400, a 2 MiB body 413, an unknown route
 * 404; and the provider key planted on the server is in no response, headers and SSE included.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InMemorySessionStorage, type SessionEvent } from '../../src/index.js';
import { OpenAIProvider } from '../../src/openai.js';
import { SCRIPTED_MODEL } from '../../src/testing/index.js';
import { ChatCompletionsServer, sseEvent, startSse } from '../support/chat-completions-server.js';
import { startHandler, testWorld, type RunningServer, type StorageWorld } from './support.js';

const KEY = 'sk-planted-4d1f9c2b7e6a5f3e8d0c';
const PROXY_KEY = 'sk-proxy-planted-91ab7c3d5e';

/** Every answer this file received: status, headers and body text. */
const seen: { what: string; text: string }[] = [];

async function raw(
  server: RunningServer,
  method: string,
  path: string,
  options: { user?: string; body?: string; headers?: Record<string, string> } = {},
) {
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: {
      ...(options.user && { authorization: `Bearer ${options.user}` }),
      ...(options.body !== undefined && { 'content-type': 'application/json' }),
      ...options.headers,
    },
    ...(options.body !== undefined && { body: options.body }),
  });
  const text = await response.text();
  const headers = [...response.headers].map(([k, v]) => `${k}: ${v}`).join('\n');
  seen.push({ what: `${method} ${path}`, text: `${response.status}\n${headers}\n${text}` });
  let json: { error?: { code: string } } | null;
  try {
    json = JSON.parse(text) as { error?: { code: string } } | null;
  } catch {
    json = null;
  }
  return { status: response.status, text, json, headers: response.headers };
}

let upstream: ChatCompletionsServer;
beforeAll(async () => {
  upstream = await ChatCompletionsServer.start();
  upstream.respondWith((req, res, body) => {
    const messages = body.messages as { content: unknown }[];
    const last = JSON.stringify(messages.at(-1)?.content ?? '');
    if (last.includes('fail')) {
      // An upstream that echoes the key it got, as some proxies do in their errors.
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({ error: { message: `bad key ${String(req.headers.authorization)}`, type: 'auth' } }),
      );
      return;
    }
    startSse(res);
    res.write(sseEvent({ choices: [{ index: 0, delta: { content: 'pong' }, finish_reason: null }] }));
    res.write(sseEvent({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }));
    res.end('data: [DONE]\n\n');
  });
});
afterAll(async () => {
  await upstream.close();
  const leaks = seen.filter(
    ({ text }) => text.includes(KEY) || text.includes(PROXY_KEY) || text.includes('sk-planted'),
  );
  expect(leaks.map((l) => l.what)).toEqual([]);
});

function provider() {
  return new OpenAIProvider({ apiKey: KEY, baseURL: upstream.baseURL, models: [SCRIPTED_MODEL] });
}

/** One world per user (namespaces), and one storage all users share (owner records only). */
const worlds: [
  string,
  () => StorageWorld & { load(user: string, id: string): Promise<SessionEvent[] | null> },
][] = [
  [
    'a storage per user',
    () => {
      const world = testWorld();
      return { ...world, load: (user, id) => world.storageFor(user).loadSession(id) };
    },
  ],
  [
    'one storage for all users',
    () => {
      const shared = new InMemorySessionStorage({ namespace: 'everyone' });
      return { storageFor: () => shared, load: (_user, id) => shared.loadSession(id) };
    },
  ],
];

/** Every route, for session `id` and turn `turnId`. */
function routes(id: string, turnId: string): [string, string, string | undefined][] {
  return [
    ['POST', '/sessions', '{}'],
    ['GET', '/sessions', undefined],
    ['GET', `/sessions/${id}`, undefined],
    ['DELETE', `/sessions/${id}`, undefined],
    ['POST', `/sessions/${id}/turns`, '{"input":"hello"}'],
    ['POST', `/sessions/${id}/continue`, '{}'],
    ['POST', `/sessions/${id}/discard`, undefined],
    ['POST', `/sessions/${id}/close`, undefined],
    ['GET', `/sessions/${id}/events`, undefined],
    ['POST', `/sessions/${id}/turns/${turnId}/cancel`, undefined],
    ['POST', `/sessions/${id}/turns/${turnId}/approvals/call-1`, '{"approved":true}'],
    ['POST', '/v1/chat/completions', '{"model":"m","messages":[]}'],
  ];
}

describe.each(worlds)('with %s', (_name, makeWorld) => {
  let server: RunningServer;
  let world: ReturnType<typeof makeWorld>;
  let sessionId: string;
  let turnId: string;
  const reported: { code: string; message: string; route: string; userId: string | null; sessionId: string | null }[] = [];

  beforeAll(async () => {
    world = makeWorld();
    server = await startHandler(
      { provider: provider(), world },
      {
        modelProxy: { upstream: upstream.baseURL, apiKey: PROXY_KEY },
        onError: (error, context) => reported.push({ code: error.code, message: error.message, ...context }),
      },
    );
    const created = await raw(server, 'POST', '/sessions', { user: 'alice', body: '{}' });
    expect(created.status).toBe(201);
    sessionId = (created.json as unknown as { id: string }).id;
    const turn = await raw(server, 'POST', `/sessions/${sessionId}/turns`, {
      user: 'alice',
      body: '{"input":"ping"}',
    });
    expect(turn.status).toBe(200);
    expect(turn.text).toContain('event: result');
    expect(turn.text).toContain('pong');
    turnId = turn.headers.get('youyou-turn-id')!;
    // A failed turn: the upstream's error names the key it was sent.
    const failed = await raw(server, 'POST', `/sessions/${sessionId}/turns`, {
      user: 'alice',
      body: '{"input":"fail now"}',
    });
    expect(failed.text).toContain('"status":"failed"');
    // The upstream's words stay on the server (with `onError`); the client reads the fixed sentence.
    expect(failed.text).toContain('the model provider failed');
    expect(failed.text).not.toContain('bad key');
    expect(reported).toContainEqual(
      expect.objectContaining({ code: 'PROVIDER_ERROR', message: expect.stringContaining('bad key'), route: 'turns', userId: 'alice', sessionId }),
    );
  });
  afterAll(() => server.close());

  it('every route without authorization is 401 UNAUTHORIZED and changes nothing', async () => {
    const before = await world.load('alice', sessionId);
    for (const [method, path, body] of routes(sessionId, turnId)) {
      for (const headers of [
        {},
        { authorization: 'Bearer' },
        { authorization: 'Basic YWxpY2U6eA==' },
      ] as Record<string, string>[]) {
        const answer = await raw(server, method, path, { ...(body !== undefined && { body }), headers });
        expect([method, path, answer.status, answer.json?.error?.code]).toEqual([
          method,
          path,
          401,
          'UNAUTHORIZED',
        ]);
      }
    }
    expect(await world.load('alice', sessionId)).toEqual(before);
    const list = await raw(server, 'GET', '/sessions', { user: 'alice' });
    expect((list.json as unknown as { sessions: unknown[] }).sessions).toHaveLength(1);
  });

  it("another user's session is 404 on every route, changes nothing and is not listed", async () => {
    const before = await world.load('alice', sessionId);
    for (const [method, path, body] of routes(sessionId, turnId).filter(([, p]) => p.includes(sessionId))) {
      const answer = await raw(server, method, path, { user: 'bob', ...(body !== undefined && { body }) });
      expect([method, path, answer.status, answer.json?.error?.code]).toEqual([
        method,
        path,
        404,
        'SESSION_NOT_FOUND',
      ]);
    }
    expect(await world.load('alice', sessionId)).toEqual(before);
    const list = await raw(server, 'GET', '/sessions', { user: 'bob' });
    expect(list.json).toEqual({ sessions: [], nextCursor: null });
  });

  it('malformed JSON and bad input are 400, a 2 MiB body 413, an unknown route 404', async () => {
    const path = `/sessions/${sessionId}/turns`;
    for (const body of [
      '{"input":',
      'not json',
      '[1,2',
      '{"input":"x","extra":1}',
      '{"input":{"content":[{"type":"video"}]}}',
      '{"input":"   "}',
    ]) {
      const answer = await raw(server, 'POST', path, { user: 'alice', body });
      expect([body, answer.status, answer.json?.error?.code]).toEqual([body, 400, 'INVALID_INPUT']);
    }
    const approval = await raw(server, 'POST', `/sessions/${sessionId}/turns/${turnId}/approvals/c1`, {
      user: 'alice',
      body: '{"approved":"yes"}',
    });
    expect(approval.status).toBe(400);
    const big = JSON.stringify({ input: 'x'.repeat(2 * 1024 * 1024) });
    const tooLarge = await raw(server, 'POST', path, { user: 'alice', body: big });
    expect([tooLarge.status, tooLarge.json?.error?.code]).toEqual([413, 'INVALID_INPUT']);
    for (const [method, unknown] of [
      ['GET', '/nothing'],
      ['GET', '/sessions/x/y/z/w/v/u'],
      ['PUT', `/sessions/${sessionId}`],
      ['GET', `/sessions/${sessionId}/turns`],
      ['POST', '/sessions/%E0%A4%A/turns'],
    ] as const) {
      const answer = await raw(server, method, unknown, { user: 'alice' });
      expect([unknown, answer.status, answer.json?.error?.code]).toEqual([unknown, 404, 'INVALID_INPUT']);
    }
    const outside = await fetch(`${server.origin}/elsewhere`, { headers: { authorization: 'Bearer alice' } });
    expect(outside.status).toBe(404);
    await outside.text();
  });

  it('the session follows and reads back with no key in any answer (SSE included)', async () => {
    const state = await raw(server, 'GET', `/sessions/${sessionId}`, { user: 'alice' });
    expect(state.status).toBe(200);
    const controller = new AbortController();
    const events = await fetch(`${server.url}/sessions/${sessionId}/events`, {
      headers: { authorization: 'Bearer alice' },
      signal: controller.signal,
    });
    const reader = events.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    seen.push({ what: 'GET events', text: first + [...events.headers].join('\n') });
    expect(first).toContain('event: state');
    controller.abort();
  });
});
