/**
 * The model proxy: an in-page agent sends its Chat Completions requests here instead of to the
 * provider, and the server forwards them with its own API key, so the key never reaches the page.
 * The proxy decides which models may be used and how long an answer may be; everything else in
 * the request, and the upstream's answer (streamed as it comes), passes through unchanged.
 * @module
 */
import * as z from 'zod/mini';
import { integer } from '../vocabulary/checks.js';
import { systemClock } from '../clock.js';
import { AgentError, formatIssues } from '../errors.js';
import { readChatBody } from './model-proxy-body.js';
import { refusalResponse } from './model-proxy-errors.js';
import { redactText, redactingStream } from './model-proxy-redact.js';

/** Options of {@link proxyModelRequest}. */
export interface ModelProxyOptions {
  /** The upstream's base URL, e.g. `'https://api.openai.com/v1'`; requests go to `…/chat/completions`. */
  upstream: string;
  /** The key sent upstream as `Authorization: Bearer …`. It never appears in a response. */
  apiKey: string;
  /** The models a caller may name. Default: any. Another model is refused with 400. */
  models?: readonly string[];
  /**
   * The longest answer a caller may ask for, in tokens: `max_tokens` and `max_completion_tokens`
   * are lowered to it, and a request with neither gets `max_completion_tokens` set to it.
   * Default: no limit.
   */
  maxOutputTokens?: number;
  /**
   * How long to wait for the upstream's response headers, in ms, before answering 504. Default
   * 60_000. The body that follows is not bounded here: it streams for as long as the caller
   * reads, and a caller that goes away ends the upstream request.
   */
  upstreamTimeoutMs?: number;
}

/** Schema of {@link ModelProxyOptions} (unknown keys are rejected). */
export const ModelProxyOptionsSchema = /* @__PURE__ */ (() =>
  z.strictObject({
    upstream: z.url({ protocol: /^https?$/ }),
    apiKey: z.string().check(z.minLength(1)),
    models: z.optional(z.readonly(z.array(z.string()))),
    maxOutputTokens: z.optional(integer().check(z.positive())),
    upstreamTimeoutMs: z.optional(integer().check(z.positive())),
  }))();

/** Default of {@link ModelProxyOptions.upstreamTimeoutMs}. */
export const DEFAULT_UPSTREAM_TIMEOUT_MS = 60_000;

/** Caller headers that go upstream (besides `content-type`, which the proxy sets): none that identify or authorize. */
const FORWARDED_REQUEST_HEADERS = ['accept', 'accept-language', 'user-agent'] as const;

/**
 * Upstream headers that come back: the body's type and the ones a client's retry logic reads
 * (the `openai` SDK honours `retry-after`, `retry-after-ms` and `x-should-retry`). Not
 * `content-length` or `content-encoding`: the body is decoded and may be redacted on the way.
 */
const RETURNED_RESPONSE_HEADER =
  /^(content-type|cache-control|retry-after|retry-after-ms|x-should-retry|x-request-id|x-ratelimit-[a-z-]+)$/;

/** Statuses whose response has no body (the `Response` constructor refuses one). */
const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);

const validated = new WeakMap<ModelProxyOptions, ModelProxyOptions>();

/** The options, checked once per options object (a bad one is a setup error, not the caller's). */
function checkedOptions(options: ModelProxyOptions): ModelProxyOptions {
  const known = validated.get(options);
  if (known) return known;
  const parsed = ModelProxyOptionsSchema.safeParse(options);
  if (!parsed.success) {
    // The issues name fields, never their values: the key stays out of the message.
    const issues = parsed.error.issues.map((issue) => ({ ...issue, input: undefined }));
    throw new AgentError(
      'INVALID_INPUT',
      `invalid modelProxy options: ${formatIssues(issues, 'modelProxy')}`,
    );
  }
  validated.set(options, parsed.data);
  return parsed.data;
}

/** The system error code under a failed `fetch` (`ECONNREFUSED`), if it is a plain word. */
function errorCode(error: unknown): string | undefined {
  const cause = error instanceof Error ? error.cause : undefined;
  const code = typeof cause === 'object' && cause !== null ? (cause as { code?: unknown }).code : undefined;
  return typeof code === 'string' && /^[A-Z_]{2,40}$/.test(code) ? code : undefined;
}

function upstreamHeaders(request: Request, apiKey: string): Headers {
  const headers = new Headers({ 'content-type': 'application/json', authorization: `Bearer ${apiKey}` });
  for (const name of FORWARDED_REQUEST_HEADERS) {
    const value = request.headers.get(name);
    if (value !== null) headers.set(name, value);
  }
  return headers;
}

function returnedHeaders(upstream: Response, apiKey: string): Headers {
  const headers = new Headers();
  upstream.headers.forEach((value, name) => {
    if (RETURNED_RESPONSE_HEADER.test(name)) headers.set(name, redactText(value, apiKey));
  });
  return headers;
}

/**
 * Forwards one Chat Completions request to `options.upstream` with the server's key, and answers
 * with the upstream's response: its status, its `content-type` and its body, streamed as it
 * arrives (Server-Sent Events stay streamed), the key redacted wherever the upstream echoes it.
 * Mount it at `POST …/v1/chat/completions` behind your own authorization: the proxy takes every
 * request it is given as authorized, and spends your key on it.
 *
 * The caller's `Authorization`, cookies and other headers never go upstream (only `accept`,
 * `accept-language` and `user-agent` do). The proxy answers itself, as
 * `{ error: { code, message } }`: 400 `INVALID_INPUT` for malformed JSON, a body that is not a
 * Chat Completions request (an object with a string `model` and a `messages` array), `n` other
 * than 1, or a model not in `models`; 413 for a body over 1 MiB; 502 `PROVIDER_ERROR` when the upstream cannot be reached;
 * 504 `PROVIDER_ERROR` when its headers take longer than `upstreamTimeoutMs`. When the caller goes
 * away (the request's `signal` aborts), the upstream request is aborted too.
 *
 * Rejects with `INVALID_INPUT` only when `options` themselves are invalid.
 * @example
 * // Node: node:http with a web-standard adapter; Hono, Next.js, Deno and Bun pass a Request as is.
 * const options = { upstream: 'https://api.openai.com/v1', apiKey: process.env.OPENAI_API_KEY!, models: ['gpt-4o-mini'], maxOutputTokens: 2048 };
 * app.post('/agent/v1/chat/completions', (c) => authorized(c.req.raw) ? proxyModelRequest(c.req.raw, options) : c.text('', 401));
 */
export async function proxyModelRequest(request: Request, options: ModelProxyOptions): Promise<Response> {
  const { upstream, apiKey, models, maxOutputTokens, upstreamTimeoutMs } = checkedOptions(options);
  if (request.method !== 'POST') {
    return refusalResponse({ status: 405, code: 'INVALID_INPUT', message: 'use POST' });
  }
  const read = await readChatBody(request, { models, maxOutputTokens });
  if (!read.ok) return refusalResponse(read.refusal);
  const body = read.body;

  // One controller for the upstream request: the caller leaving aborts it at any point, the
  // timer only until the headers are in.
  const controller = new AbortController();
  const onCallerGone = () => controller.abort(request.signal.reason);
  if (request.signal.aborted) onCallerGone();
  request.signal.addEventListener('abort', onCallerGone, { once: true });
  const release = () => request.signal.removeEventListener('abort', onCallerGone);
  const timeoutMs = upstreamTimeoutMs ?? DEFAULT_UPSTREAM_TIMEOUT_MS;
  let timedOut = false;
  const timer = systemClock.setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, timeoutMs);

  let answer: Response;
  try {
    answer = await fetch(`${upstream.replace(/\/+$/, '')}/chat/completions`, {
      method: 'POST',
      headers: upstreamHeaders(request, apiKey),
      body: JSON.stringify(body),
      signal: controller.signal,
      // A redirect would carry the key to wherever the upstream points: refuse it.
      redirect: 'error',
    });
  } catch (error) {
    release();
    if (timedOut) {
      return refusalResponse({
        status: 504,
        code: 'PROVIDER_ERROR',
        message: `the model server sent no response within ${timeoutMs}ms`,
      });
    }
    if (request.signal.aborted) {
      return refusalResponse({ status: 499, code: 'REQUEST_CANCELLED', message: 'the caller went away' });
    }
    // Only the error's code (`ECONNREFUSED`, `ENOTFOUND`): its message names the upstream's
    // address, which is the server's business, not the caller's.
    const code = errorCode(error);
    return refusalResponse({
      status: 502,
      code: 'PROVIDER_ERROR',
      message: `the model server could not be reached${code ? ` (${code})` : ''}`,
    });
  } finally {
    systemClock.clearTimeout(timer);
  }

  const headers = returnedHeaders(answer, apiKey);
  if (NULL_BODY_STATUSES.has(answer.status) || !answer.body) {
    release();
    return new Response(null, { status: answer.status, headers });
  }
  const relayed = answer.body.pipeThrough(redactingStream(apiKey)).pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      flush: release,
    }),
  );
  return new Response(relayed, {
    status: answer.status,
    statusText: redactText(answer.statusText, apiKey),
    headers,
  });
}
