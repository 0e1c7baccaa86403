/**
 * How `OpenAIProvider` fails, over real HTTP through the real `openai` SDK: HTTP statuses,
 * Retry-After, broken and truncated streams, malformed chunks, error objects inside a stream.
 */
import { createServer } from 'node:net';
import OpenAI from 'openai';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { OpenAIProvider } from '../../../src/openai.js';
import {
  collect,
  joined,
  sseEvent,
  startSse,
  streamText,
  writeInPieces,
} from '../../support/chat-completions-server.js';
import { withChatServer } from '../../support/chat-server.js';
import { chatModel, chatRequest } from '../../support/models.js';
import { asAgentError } from '../../support/errors.js';

const model = chatModel('m');
const local = withChatServer();

const request = chatRequest('hi');

const delta = (content: string, finish: string | null = null) =>
  sseEvent({ choices: [{ index: 0, delta: { content }, finish_reason: finish }] });

function chat() {
  return local.provider({ id: 'local' }).chat(request, new AbortController().signal);
}

function errorReply(status: number, body: unknown, headers: Record<string, string> = {}) {
  local.server.respondWith((_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  });
}

describe('HTTP errors', () => {
  it('429 with Retry-After: retryable, carries retryAfterMs, and the SDK did not retry on its own', async () => {
    errorReply(
      429,
      { error: { message: 'Rate limit reached for requests', type: 'requests' } },
      { 'retry-after': '7' },
    );
    const before = local.server.requests.length;
    const { events, error } = await collect(chat());
    const e = asAgentError(error);
    expect(events).toEqual([]);
    expect(e.code).toBe('PROVIDER_ERROR');
    expect(e.retryable).toBe(true);
    expect(e.retryAfterMs).toBe(7000);
    expect(e.message).toContain('Rate limit reached for requests');
    expect(e.message).toContain('429');
    expect(local.server.requests.length - before).toBe(1);
  });

  it('prefers retry-after-ms over retry-after', async () => {
    errorReply(429, { error: { message: 'slow down' } }, { 'retry-after-ms': '1234', 'retry-after': '9' });
    const e = asAgentError((await collect(chat())).error);
    expect(e.retryAfterMs).toBe(1234);
  });

  it('500: retryable, with the server message, one request only', async () => {
    errorReply(500, { error: { message: 'The server had an error while processing your request.' } });
    const before = local.server.requests.length;
    const e = asAgentError((await collect(chat())).error);
    expect(e.code).toBe('PROVIDER_ERROR');
    expect(e.retryable).toBe(true);
    expect(e.retryAfterMs).toBeUndefined();
    expect(e.message).toContain('The server had an error while processing your request.');
    expect(local.server.requests.length - before).toBe(1);
  });

  it('bypasses the retries of a client passed in: one request per chat', async () => {
    errorReply(500, { error: { message: 'boom' } });
    // A client with the SDK's default of 2 retries: the provider must still send one request.
    const client = new OpenAI({ apiKey: 'k', baseURL: local.server.baseURL, logLevel: 'off' });
    const withClient = new OpenAIProvider({ id: 'own-client', client, models: [model] });
    const before = local.server.requests.length;
    const e = asAgentError((await collect(withClient.chat(request, new AbortController().signal))).error);
    expect(e.retryable).toBe(true);
    expect(local.server.requests.length - before).toBe(1);
  });

  it('401: not retryable, with the server message', async () => {
    errorReply(401, {
      error: {
        message: 'Incorrect API key provided: sk-test-key.',
        type: 'invalid_request_error',
        code: 'invalid_api_key',
      },
    });
    const e = asAgentError((await collect(chat())).error);
    expect(e.code).toBe('PROVIDER_ERROR');
    expect(e.retryable).toBe(false);
    // The server echoed the configured key: the message keeps its text but not the key.
    expect(e.message).toContain('Incorrect API key provided: [redacted].');
  });

  it('keeps a plain-text error body as the message', async () => {
    local.server.respondWith((_req, res) => {
      res.writeHead(503, { 'content-type': 'text/plain' });
      res.end('upstream overloaded');
    });
    const e = asAgentError((await collect(chat())).error);
    expect(e.retryable).toBe(true);
    expect(e.message).toContain('upstream overloaded');
  });

  for (const [status, retryable] of [
    [400, false],
    [403, false],
    [404, false],
    [422, false],
    [408, true],
    [409, true],
    [502, true],
    [503, true],
  ] as const) {
    it(`${status} is ${retryable ? '' : 'not '}retryable`, async () => {
      errorReply(status, { error: { message: `status ${status}` } });
      const e = asAgentError((await collect(chat())).error);
      expect(e.code).toBe('PROVIDER_ERROR');
      expect(e.retryable).toBe(retryable);
      expect(e.message).toContain(`status ${status}`);
    });
  }

  it("obeys the server's x-should-retry: false", async () => {
    errorReply(503, { error: { message: 'do not retry' } }, { 'x-should-retry': 'false' });
    expect(asAgentError((await collect(chat())).error).retryable).toBe(false);
  });
});

describe('connection failures', () => {
  it('a refused connection is a retryable provider error', async () => {
    // A port that was free a moment ago and has nothing listening now.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const offline = new OpenAIProvider({
      baseURL: `http://127.0.0.1:${port}/v1`,
      apiKey: 'k',
      models: [model],
    });
    const e = asAgentError((await collect(offline.chat(request, new AbortController().signal))).error);
    expect(e.code).toBe('PROVIDER_ERROR');
    expect(e.retryable).toBe(true);
    expect(e.message).toContain('connection failed');
  });

  it('a connection reset mid-stream is a retryable provider error, after the deltas that arrived', async () => {
    let reset: () => void = () => {};
    local.server.respondWith(async (_req, res) => {
      startSse(res);
      reset = () => res.socket?.resetAndDestroy();
      await writeInPieces(res, delta('Hel') + delta('lo'));
    });
    const stream = chat()[Symbol.asyncIterator]();
    const first = await stream.next();
    expect(first.value).toEqual({ type: 'text_delta', text: 'Hel' });
    reset();
    const rest = await collect({ [Symbol.asyncIterator]: () => stream });
    const e = asAgentError(rest.error);
    expect(e.code).toBe('PROVIDER_ERROR');
    expect(e.retryable).toBe(true);
    expect(rest.events.some((event) => event.type === 'done')).toBe(false);
  });

  it('a connection closed after the finish reason is a success without usage', async () => {
    let drop: () => void = () => {};
    local.server.respondWith(async (_req, res) => {
      startSse(res);
      drop = () => res.socket?.destroy();
      await writeInPieces(res, delta('The end', 'stop'));
    });
    const stream = chat()[Symbol.asyncIterator]();
    // This chunk carries both the text and the finish reason: once it is read, the model is done.
    expect((await stream.next()).value).toEqual({ type: 'text_delta', text: 'The end' });
    drop();
    const rest = await collect({ [Symbol.asyncIterator]: () => stream });
    expect(rest.error).toBeUndefined();
    expect(rest.events).toEqual([{ type: 'done', finishReason: 'stop' }]);
  });
});

describe('incomplete and malformed streams', () => {
  it('a stream that ends cleanly before any finish reason is a retryable provider error', async () => {
    local.server.respondWith(streamText(delta('Hel') + delta('lo')));
    const { events, error } = await collect(chat());
    expect(joined(events, 'text_delta')).toBe('Hello');
    expect(events.some((e) => e.type === 'done')).toBe(false);
    const e = asAgentError(error);
    expect(e.code).toBe('PROVIDER_ERROR');
    expect(e.retryable).toBe(true);
    expect(e.message).toContain('before a finish reason');
  });

  it('a stream cut in the middle of an event is a retryable provider error', async () => {
    const whole = delta('Hel') + delta('lo', 'stop') + 'data: [DONE]\n\n';
    const cut = whole.slice(0, whole.indexOf('"lo"') + 2);
    local.server.respondWith(streamText(cut));
    const { events, error } = await collect(chat());
    expect(joined(events, 'text_delta')).toBe('Hel');
    expect(asAgentError(error).retryable).toBe(true);
  });

  it('a stream with a finish reason but no [DONE] is a success', async () => {
    local.server.respondWith(streamText(delta('Hi', 'stop')));
    const { events, error } = await collect(chat());
    expect(error).toBeUndefined();
    expect(events).toEqual([
      { type: 'text_delta', text: 'Hi' },
      { type: 'done', finishReason: 'stop' },
    ]);
  });

  it('a chunk that is not JSON is a non-retryable error naming the provider', async () => {
    local.server.respondWith(streamText(delta('Hi') + 'data: {"choices": [oops}\n\n' + delta('!', 'stop')));
    const { events, error } = await collect(chat());
    expect(joined(events, 'text_delta')).toBe('Hi');
    const e = asAgentError(error);
    expect(e.code).toBe('PROVIDER_ERROR');
    expect(e.retryable).toBe(false);
    expect(e.message).toContain("provider 'local'");
    expect(e.message).toContain('malformed');
  });

  it('an error object in the stream that says rate limit is retryable', async () => {
    local.server.respondWith(
      streamText(
        delta('Hi') + sseEvent({ error: { message: 'Rate limit exceeded: free-models-per-min', code: 429 } }),
      ),
    );
    const e = asAgentError((await collect(chat())).error);
    expect(e.code).toBe('PROVIDER_ERROR');
    expect(e.retryable).toBe(true);
    expect(e.message).toContain('Rate limit exceeded');
  });

  it('an `event: error` with an overloaded error type is retryable', async () => {
    local.server.respondWith(
      streamText(
        delta('Hi') +
          `event: error\ndata: ${JSON.stringify({ error: { type: 'overloaded_error', message: 'Overloaded' } })}\n\n`,
      ),
    );
    expect(asAgentError((await collect(chat())).error).retryable).toBe(true);
  });
});
