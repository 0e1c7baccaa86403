/**
 * The model proxy against a fake upstream on 127.0.0.1 that records what it receives: the
 * server's key goes up and the caller's credentials do not, the allowed models and the output-token
 * cap are enforced before anything is sent, answers stream through as they come, errors come back
 * with their status and without the key, and the caller going away ends the upstream request.
 */
import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentError } from '../../src/errors.js';
import { proxyModelRequest, type ModelProxyOptions } from '../../src/server.js';
import { ChatCompletionsServer, closed, sseEvent, startSse } from '../support/chat-completions-server.js';

const SERVER_KEY = 'sk-server-secret-0123456789abcdef';
let upstream: ChatCompletionsServer;
beforeAll(async () => (upstream = await ChatCompletionsServer.start()));
afterAll(() => upstream.close());

function options(fields: Partial<ModelProxyOptions> = {}): ModelProxyOptions {
  return { upstream: upstream.baseURL, apiKey: SERVER_KEY, ...fields };
}

/** A caller's request to the proxy, as a browser page would send it. */
function callerRequest(body: unknown, init: RequestInit = {}): Request {
  return new Request('http://app.test/agent/v1/chat/completions', {
    method: 'POST',
    body: typeof body === 'string' ? body : JSON.stringify(body),
    ...init,
    headers: {
      'content-type': 'application/json',
      accept: 'application/json',
      authorization: 'Bearer user-session-token',
      cookie: 'session=user-cookie',
      'x-custom': 'caller-only',
      ...(init.headers as Record<string, string> | undefined),
    },
  });
}

const chat = (fields: Record<string, unknown> = {}) => ({
  model: 'gpt-4o-mini',
  messages: [{ role: 'user', content: 'hi' }],
  ...fields,
});

function answerJson(res: ServerResponse, status = 200, body: unknown = { id: 'c1', choices: [] }): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

/** Everything a response carries that the caller can read: status line, headers, body. */
async function everything(response: Response): Promise<string> {
  const headers: string[] = [];
  response.headers.forEach((value, name) => headers.push(`${name}: ${value}`));
  return `${response.status} ${response.statusText}\n${headers.join('\n')}\n\n${await response.text()}`;
}

describe('what goes upstream', () => {
  it("sends the server's key instead of the caller's credentials, and the body as written", async () => {
    upstream.respondWith((_req, res) => answerJson(res));
    const before = upstream.requests.length;
    const response = await proxyModelRequest(
      callerRequest(chat({ temperature: 0.2, tools: [{ type: 'function', function: { name: 'f' } }] })),
      options(),
    );
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ id: 'c1', choices: [] });
    const [received] = upstream.requests.slice(before);
    expect(received).toMatchObject({ method: 'POST', url: '/v1/chat/completions' });
    expect(received!.headers.authorization).toBe(`Bearer ${SERVER_KEY}`);
    expect(received!.headers.cookie).toBeUndefined();
    expect(received!.headers['x-custom']).toBeUndefined();
    expect(received!.headers.accept).toBe('application/json');
    expect(received!.headers['content-type']).toBe('application/json');
    expect(JSON.stringify(received!.headers)).not.toContain('user-session-token');
    expect(received!.body).toEqual(
      chat({ temperature: 0.2, tools: [{ type: 'function', function: { name: 'f' } }] }),
    );
  });

  it('refuses a model not in `models` with 400, without calling the upstream', async () => {
    const before = upstream.requests.length;
    const response = await proxyModelRequest(
      callerRequest(chat({ model: 'gpt-expensive' })),
      options({ models: ['gpt-4o-mini'] }),
    );
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      error: { code: 'INVALID_INPUT', message: "model 'gpt-expensive' is not offered by this server" },
    });
    expect(upstream.requests.length).toBe(before);
  });

  it('refuses n other than 1 with 400 naming the field, without calling the upstream; n: 1 goes through', async () => {
    const before = upstream.requests.length;
    for (const n of [2, 0, 128]) {
      const response = await proxyModelRequest(callerRequest(chat({ n })), options());
      expect(response.status).toBe(400);
      const body = (await response.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe('INVALID_INPUT');
      expect(body.error.message).toContain('request.n');
    }
    expect(upstream.requests.length).toBe(before);
    upstream.respondWith((_req, res) => answerJson(res));
    expect((await proxyModelRequest(callerRequest(chat({ n: 1 })), options())).status).toBe(200);
    expect(upstream.requests.slice(before).map((r) => (r.body as { n?: number }).n)).toEqual([1]);
  });

  it("forwards a body whatever fields it holds: one shaped like the proxy's refusal is still the caller's", async () => {
    upstream.respondWith((_req, res) => answerJson(res));
    const before = upstream.requests.length;
    const shaped = chat({ status: 400, code: 'INVALID_INPUT', message: 'not mine' });
    const response = await proxyModelRequest(callerRequest(shaped), options());
    expect(response.status).toBe(200);
    expect(upstream.requests.slice(before).map((r) => r.body)).toEqual([shaped]);
  });

  it('clamps max_tokens and max_completion_tokens to maxOutputTokens, and sets a cap when none is asked', async () => {
    upstream.respondWith((_req, res) => answerJson(res));
    const sent = async (fields: Record<string, unknown>, proxy: Partial<ModelProxyOptions>) => {
      const response = await proxyModelRequest(callerRequest(chat(fields)), options(proxy));
      expect(response.status).toBe(200);
      await response.body?.cancel();
      const { body } = upstream.requests.at(-1)!;
      return { max_tokens: body.max_tokens, max_completion_tokens: body.max_completion_tokens };
    };
    const cap = { maxOutputTokens: 1000 };
    expect(await sent({ max_tokens: 5000 }, cap)).toEqual({
      max_tokens: 1000,
      max_completion_tokens: undefined,
    });
    expect(await sent({ max_completion_tokens: 4096, max_tokens: 10 }, cap)).toEqual({
      max_tokens: 10,
      max_completion_tokens: 1000,
    });
    expect(await sent({}, cap)).toEqual({ max_tokens: undefined, max_completion_tokens: 1000 });
    expect(await sent({ max_tokens: null }, cap)).toEqual({
      max_tokens: undefined,
      max_completion_tokens: 1000,
    });
    expect(await sent({ max_tokens: 5000 }, {})).toEqual({
      max_tokens: 5000,
      max_completion_tokens: undefined,
    });
  });

  it.each([
    ['malformed JSON', '{"model": "gpt-4o-mini", ', 'the request body is not valid JSON'],
    ['a JSON array', '[]', 'invalid chat completions request: request: expected object'],
    ['no messages', JSON.stringify({ model: 'gpt-4o-mini' }), 'request.messages: expected array'],
    ['a model that is not a string', JSON.stringify(chat({ model: 7 })), 'request.model: expected string'],
    ['a negative max_tokens', JSON.stringify(chat({ max_tokens: -1 })), 'request.max_tokens'],
  ])('answers %s with 400 INVALID_INPUT, without calling the upstream', async (_, body, message) => {
    const before = upstream.requests.length;
    const response = await proxyModelRequest(callerRequest(body), options());
    expect(response.status).toBe(400);
    const answer = (await response.json()) as { error: { code: string; message: string } };
    expect(answer.error.code).toBe('INVALID_INPUT');
    expect(answer.error.message).toContain(message);
    expect(upstream.requests.length).toBe(before);
  });

  it('answers a body over 1 MiB with 413, whether it declares its length or not', async () => {
    const before = upstream.requests.length;
    const big = JSON.stringify(chat({ messages: [{ role: 'user', content: 'x'.repeat(1_048_576) }] }));
    const streamed = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(big));
        controller.close();
      },
    });
    const undeclared = callerRequest('', { body: streamed, duplex: 'half' } as RequestInit);
    const declared = callerRequest('{}', { headers: { 'content-length': String(2 * 1_048_576) } });
    for (const request of [callerRequest(big), undeclared, declared]) {
      const response = await proxyModelRequest(request, options());
      expect(response.status).toBe(413);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe('INVALID_INPUT');
    }
    expect(upstream.requests.length).toBe(before);
  });
});

describe('what comes back', () => {
  it('streams an SSE answer through: the first event arrives while the upstream still holds the rest', async () => {
    let releaseRest!: () => void;
    const restReleased = new Promise<void>((resolve) => (releaseRest = resolve));
    let restSent = false;
    const first = sseEvent({ id: 'c1', choices: [{ index: 0, delta: { content: 'Hel' } }] });
    const rest =
      sseEvent({ id: 'c1', choices: [{ index: 0, delta: { content: 'lo' }, finish_reason: 'stop' }] }) +
      'data: [DONE]\n\n';
    upstream.respondWith(async (_req, res) => {
      startSse(res);
      res.write(first);
      await restReleased;
      restSent = true;
      res.end(rest);
    });
    const response = await proxyModelRequest(callerRequest(chat({ stream: true })), options());
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = '';
    while (!text.endsWith('\n\n')) text += (await reader.read()).value ?? '';
    expect(text).toBe(first);
    expect(restSent).toBe(false);
    releaseRest();
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) text += chunk.value;
    expect(restSent).toBe(true);
    expect(text).toBe(first + rest);
  });

  it.each([401, 429, 500])(
    'returns an upstream %i with its status and body, the key redacted wherever it is echoed',
    async (status) => {
      upstream.respondWith((req, res) => {
        res.writeHead(status, {
          'content-type': 'application/json',
          'retry-after': '7',
          'x-request-id': `req for ${req.headers.authorization}`,
          'www-authenticate': `Bearer realm="${SERVER_KEY}"`,
        });
        res.end(
          JSON.stringify({
            error: { message: `Incorrect API key provided: ${SERVER_KEY}`, type: 'invalid_request_error' },
          }),
        );
      });
      const response = await proxyModelRequest(callerRequest(chat()), options());
      expect(response.status).toBe(status);
      expect(response.headers.get('content-type')).toBe('application/json');
      expect(response.headers.get('retry-after')).toBe('7');
      expect(response.headers.get('x-request-id')).toBe('req for Bearer [redacted]');
      const all = await everything(response);
      expect(all).not.toContain(SERVER_KEY);
      expect(all).toContain('"message":"Incorrect API key provided: [redacted]"');
    },
  );

  it('answers 502 PROVIDER_ERROR when the upstream cannot be reached', async () => {
    const gone = await ChatCompletionsServer.start();
    await gone.close();
    const response = await proxyModelRequest(callerRequest(chat()), options({ upstream: gone.baseURL }));
    expect(response.status).toBe(502);
    expect(await response.json()).toEqual({
      error: { code: 'PROVIDER_ERROR', message: 'the model server could not be reached (ECONNREFUSED)' },
    });
  });

  it('answers 504 PROVIDER_ERROR when the upstream sends no headers within upstreamTimeoutMs', async () => {
    let upstreamClosed: Promise<{ finished: boolean }> | undefined;
    upstream.respondWith((_req, res) => void (upstreamClosed = closed(res)));
    const response = await proxyModelRequest(callerRequest(chat()), options({ upstreamTimeoutMs: 50 }));
    expect(response.status).toBe(504);
    expect(await response.json()).toEqual({
      error: { code: 'PROVIDER_ERROR', message: 'the model server sent no response within 50ms' },
    });
    expect(await upstreamClosed).toEqual({ finished: false });
  });
});

describe('the caller going away', () => {
  it('before the upstream answers: the upstream request is aborted', async () => {
    let arrived!: () => void;
    const atUpstream = new Promise<void>((resolve) => (arrived = resolve));
    let upstreamClosed: Promise<{ finished: boolean }> | undefined;
    upstream.respondWith((_req, res) => {
      upstreamClosed = closed(res);
      arrived();
    });
    const caller = new AbortController();
    const answer = proxyModelRequest(callerRequest(chat(), { signal: caller.signal }), options());
    await atUpstream;
    caller.abort();
    expect((await answer).status).toBe(499);
    expect(await upstreamClosed).toEqual({ finished: false });
  });

  it('mid-stream: cancelling the response body aborts the upstream stream', async () => {
    let upstreamClosed: Promise<{ finished: boolean }> | undefined;
    upstream.respondWith((_req, res) => {
      upstreamClosed = closed(res);
      startSse(res);
      res.write(sseEvent({ id: 'c1', choices: [{ index: 0, delta: { content: 'Hel' } }] }));
    });
    const response = await proxyModelRequest(callerRequest(chat({ stream: true })), options());
    const reader = response.body!.getReader();
    await reader.read();
    await reader.cancel();
    expect(await upstreamClosed).toEqual({ finished: false });
  });

  it("mid-stream: the request's signal aborting ends the relayed body and the upstream stream", async () => {
    let upstreamClosed: Promise<{ finished: boolean }> | undefined;
    upstream.respondWith((_req, res) => {
      upstreamClosed = closed(res);
      startSse(res);
      res.write(sseEvent({ id: 'c1', choices: [{ index: 0, delta: { content: 'Hel' } }] }));
    });
    const caller = new AbortController();
    const response = await proxyModelRequest(
      callerRequest(chat({ stream: true }), { signal: caller.signal }),
      options(),
    );
    const reader = response.body!.getReader();
    await reader.read();
    caller.abort();
    await expect(reader.read()).rejects.toBeDefined();
    expect(await upstreamClosed).toEqual({ finished: false });
  });
});

describe('options', () => {
  it.each([
    ['an upstream that is not an http(s) URL', { upstream: 'file:///etc' }],
    ['an empty key', { apiKey: '' }],
    ['a cap that is not a positive integer', { maxOutputTokens: 0 }],
    ['an unknown option', { retries: 3 }],
  ])('rejects %s with INVALID_INPUT, without showing the key', async (_, fields) => {
    const error = await proxyModelRequest(callerRequest(chat()), {
      ...options(),
      ...(fields as Partial<ModelProxyOptions>),
    }).catch((e: unknown) => e);
    expect(AgentError.isInstance(error)).toBe(true);
    expect((error as AgentError).code).toBe('INVALID_INPUT');
    expect((error as AgentError).message).not.toContain(SERVER_KEY);
  });
});
