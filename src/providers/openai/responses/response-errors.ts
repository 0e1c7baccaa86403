/**
 * Failures a Responses stream reports (`error` events, `response.failed`) and the truncated
 * stream, as `AgentError`s. Pure and SDK-free.
 * @module
 */
import { describeError, type AgentError } from '../../../agent-error.js';
import * as Errors from '../../../error-constructors.js';
import { errorBodyMessage, isTransientErrorBody } from '../errors.js';

/**
 * Codes that say the request itself is at fault (or the account is): retrying cannot help, even
 * when the server sends them as an HTTP 429 (`insufficient_quota`).
 */
const PERMANENT =
  /insufficient_quota|invalid|context_length|not_found|could not be verified|unsupported|billing/i;

/**
 * Whether a reported error is worth retrying: not for the permanent codes above; yes for rate
 * limits, server errors, overload, unavailability and timeouts (by status, code, type or message).
 * @example
 * isRetryableResponseError({ code: 'rate_limit_exceeded', message: 'Slow down' }); // true
 */
export function isRetryableResponseError(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const record = error as Record<string, unknown>;
  const words = [record['code'], record['type']].filter((v) => typeof v === 'string').join(' ');
  if (PERMANENT.test(words)) return false;
  return isTransientErrorBody(error);
}

/**
 * The payload of an `error` event: `{ code, message }` as the API reference has it, or nested in
 * `error` as OpenAI sends it; `response.failed` carries it as `response.error`.
 */
export function reportedError(event: Record<string, unknown>): unknown {
  const nested = event['error'];
  return typeof nested === 'object' && nested !== null ? nested : event;
}

/** A reported error → `PROVIDER_ERROR`, retryable per {@link isRetryableResponseError}. */
export function responseFailedError(providerId: string, what: string, error: unknown): AgentError {
  const text = errorBodyMessage(error) ?? describeError(error);
  const code = (error as { code?: unknown } | null)?.code;
  return Errors.provider(
    `provider '${providerId}' reported ${what}${typeof code === 'string' ? ` (${code})` : ''}: ${text}`,
    { retryable: isRetryableResponseError(error), cause: error },
  );
}

/** The stream ended without `response.completed`, `.incomplete` or `.failed`: retryable. */
export function truncatedStreamError(providerId: string): AgentError {
  return Errors.provider(
    `provider '${providerId}': the stream ended before the response did (no terminal event; connection broken?)`,
    { retryable: true },
  );
}

/**
 * `failure` (what an HTTP error became), made non-retryable when the server's error code says
 * retrying cannot help: `insufficient_quota` comes as an HTTP 429.
 */
export function withPermanentCode(failure: AgentError, error: unknown): AgentError {
  const code = (error as { code?: unknown } | null)?.code;
  if (!failure.retryable || typeof code !== 'string' || !PERMANENT.test(code)) return failure;
  return Errors.provider(failure.message, { retryable: false, cause: failure.cause });
}

/**
 * The server answered `/responses` with Chat Completions chunks (a gateway that maps every path
 * to Chat Completions): retrying cannot help, `OpenAIProvider` is what speaks to it.
 */
export function chatCompletionsAnswerError(providerId: string): AgentError {
  return Errors.provider(
    `provider '${providerId}': the server answered with Chat Completions chunks, not Responses API events (use OpenAIProvider for it)`,
    { retryable: false },
  );
}
