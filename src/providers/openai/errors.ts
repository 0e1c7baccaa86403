/**
 * How failures of an OpenAI-compatible server become `AgentError`s: which are retryable, what
 * the message says, and how long the server asked to wait. Pure and SDK-free: the provider
 * recognises the `openai` SDK's error classes and calls these with plain values.
 * @module
 */
import { AgentError, describeError } from '../../errors.js';
import * as Errors from '../../error-constructors.js';

/** The part of a `Headers` object these functions read. */
export interface HeadersLike {
  get(name: string): string | null;
}

/**
 * Whether an HTTP status is worth retrying: 408 (request timeout), 409 (lock conflict),
 * 429 (rate limit) and every 5xx. The same set the `openai` SDK retries on its own.
 */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/**
 * The wait the server asked for, in ms: `retry-after-ms` (ms), else `retry-after` in seconds or
 * as an HTTP date (relative to `now`). `undefined` when neither is present or parseable; a date
 * in the past gives 0.
 */
export function retryAfterMsFromHeaders(
  headers: HeadersLike | undefined | null,
  now: number = Date.now(),
): number | undefined {
  if (!headers) return undefined;
  const ms = parseNonNegative(headers.get('retry-after-ms'));
  if (ms !== undefined) return ms;
  const value = headers.get('retry-after')?.trim();
  if (!value) return undefined;
  const seconds = parseNonNegative(value);
  if (seconds !== undefined) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

function parseNonNegative(value: string | null): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  const n = Number(value);
  return Number.isFinite(n) && n >= 0 ? n : undefined;
}

/**
 * The human message inside an error body: `{ message }`, `{ error: { message } }`, a plain
 * string, or `undefined`.
 */
export function errorBodyMessage(body: unknown): string | undefined {
  if (typeof body === 'string') return body || undefined;
  if (typeof body !== 'object' || body === null) return undefined;
  const record = body as Record<string, unknown>;
  if (typeof record['message'] === 'string' && record['message']) return record['message'];
  if ('error' in record) return errorBodyMessage(record['error']);
  return undefined;
}

/** What the provider knows about a non-2xx HTTP response. */
export interface HttpErrorDetails {
  /** The HTTP status. */
  status: number;
  /** The server's message, when it sent one. */
  serverMessage?: string | undefined;
  /** The response headers (for `Retry-After` and `x-should-retry`). */
  headers?: HeadersLike | undefined | null;
  /** The original error. */
  cause?: unknown;
}

/**
 * A non-2xx response → `PROVIDER_ERROR`, retryable per {@link isRetryableStatus} unless the
 * server's `x-should-retry` header says otherwise, carrying `retryAfterMs` from the headers.
 */
export function httpStatusError(providerId: string, details: HttpErrorDetails): AgentError {
  const { status, serverMessage, headers, cause } = details;
  const override = headers?.get('x-should-retry');
  const retryable = override === 'true' ? true : override === 'false' ? false : isRetryableStatus(status);
  const retryAfterMs = retryable ? retryAfterMsFromHeaders(headers) : undefined;
  const message = `provider '${providerId}': HTTP ${status}${serverMessage ? `: ${serverMessage}` : ''}`;
  return Errors.provider(message, {
    retryable,
    cause,
    ...(retryAfterMs !== undefined && { retryAfterMs }),
  });
}

const TRANSIENT_WORDS =
  /rate[\s_-]?limit|overload|server[\s_-]?error|internal[\s_-]?error|unavailable|timed?[\s_-]?out|capacity/i;

/**
 * Whether an error object sent inside a stream (`{ "error": {...} }` or `event: error`) describes
 * a transient failure: a numeric status (`status_code`, `status` or a numeric `code`) decides
 * when present; otherwise its `type`, `code` or `message` must say rate limit, overload, server
 * error, unavailable or timeout.
 */
export function isTransientErrorBody(body: unknown): boolean {
  if (typeof body !== 'object' || body === null) return false;
  const record = body as Record<string, unknown>;
  for (const key of ['status_code', 'status', 'code']) {
    const value = record[key];
    const status =
      typeof value === 'number'
        ? value
        : typeof value === 'string' && /^\d{3}$/.test(value)
          ? Number(value)
          : undefined;
    if (status !== undefined) return isRetryableStatus(status);
  }
  const words = ['type', 'code', 'message']
    .map((key) => record[key])
    .filter((value): value is string => typeof value === 'string')
    .join(' ');
  return TRANSIENT_WORDS.test(words);
}

/**
 * An error object inside a stream → `PROVIDER_ERROR`, retryable per {@link isTransientErrorBody}.
 * Such an error wins over a finish reason sent before it (recorded OpenRouter stream: `length`
 * then `{ code: 400, "Token limit reached" }`): the response is not trusted as complete.
 */
export function streamErrorObjectError(providerId: string, body: unknown, cause?: unknown): AgentError {
  const text = errorBodyMessage(body) ?? describeError(body);
  return Errors.provider(`provider '${providerId}' reported an error in the stream: ${text}`, {
    retryable: isTransientErrorBody(body),
    cause: cause ?? body,
  });
}

/** The connection failed or broke (refused, reset, timed out) → retryable `PROVIDER_ERROR`. */
export function connectionError(providerId: string, cause: unknown): AgentError {
  return Errors.provider(`provider '${providerId}': connection failed: ${describeConnectionCause(cause)}`, {
    retryable: true,
    cause,
  });
}

/** Node's fetch says only `fetch failed` / `terminated`; the useful part is in `cause`. */
function describeConnectionCause(error: unknown): string {
  const text = describeError(error);
  const cause = error instanceof Error ? error.cause : undefined;
  return cause === undefined || cause === error ? text : `${text} (${describeConnectionCause(cause)})`;
}

/**
 * The stream ended (cleanly or not) before the model said it finished: neither a finish reason
 * nor a complete response arrived, so the connection broke → retryable `PROVIDER_ERROR`.
 */
export function streamEndedEarlyError(providerId: string): AgentError {
  return Errors.provider(
    `provider '${providerId}': the stream ended before a finish reason (connection broken?)`,
    { retryable: true },
  );
}

/** How much of a malformed chunk its error message quotes. */
const CHUNK_EXCERPT_LENGTH = 200;

/**
 * A stream chunk that is not valid JSON → `PROVIDER_ERROR`, not retryable (a protocol fault). The
 * message quotes the start of `data` when given: pass it with any secret already replaced, since
 * a quote cut short could keep the first half of one.
 */
export function malformedChunkError(providerId: string, data?: string, cause?: unknown): AgentError {
  const excerpt =
    data === undefined
      ? ''
      : `: ${data.length > CHUNK_EXCERPT_LENGTH ? `${data.slice(0, CHUNK_EXCERPT_LENGTH)}…` : data}`;
  return Errors.provider(`provider '${providerId}' sent a malformed stream chunk (invalid JSON)${excerpt}`, {
    retryable: false,
    ...(cause !== undefined && { cause }),
  });
}

/** Any other failure of the provider's client (e.g. missing credentials) → not retryable. */
export function clientError(providerId: string, cause: unknown): AgentError {
  if (AgentError.isInstance(cause)) return cause;
  return Errors.provider(`provider '${providerId}': ${describeError(cause)}`, {
    retryable: false,
    cause,
  });
}
