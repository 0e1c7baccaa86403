/**
 * What a client may read of an error. An infrastructure failure's message may name a database
 * host, a port, a role, a SQL state or an upstream model server's words: over HTTP and in frames
 * each such code says one fixed sentence instead, and the detail goes to the handler's `onError`.
 * Every other code keeps its message, which the runtime writes from what the caller sent.
 * @module
 */
import { AgentError } from '../errors.js';
import type { AgentErrorCode, AgentErrorData } from '../types.js';

/** The sentence a client reads for each code whose message may carry infrastructure detail. */
export const FIXED_ERROR_SENTENCES: Readonly<Partial<Record<AgentErrorCode, string>>> = {
  STORAGE_ERROR: 'the session storage failed',
  STORAGE_DUPLICATE: 'the session storage refused a record it already holds',
  PROVIDER_ERROR: 'the model provider failed',
  INTERNAL_ERROR: 'the server failed',
  COMPACT_ERROR: 'the conversation could not be compacted',
  MEMORY_FAILED: 'the memory store failed',
  HOOK_FAILED: 'a plugin hook failed',
  PLUGIN_INIT_FAILED: 'a plugin failed to start',
  TOOL_SOURCE_UNAVAILABLE: 'a tool source is unavailable',
  NO_MODEL_PROVIDER: 'the server has no model provider',
};

/** Whether a client reads a fixed sentence instead of the message for `code`. */
export function isHiddenCode(code: AgentErrorCode): boolean {
  return FIXED_ERROR_SENTENCES[code] !== undefined;
}

/** `error` as a client may read it: the same error, or its code with the fixed sentence. */
export function publicError(error: AgentError): AgentError {
  const sentence = FIXED_ERROR_SENTENCES[error.code];
  if (sentence === undefined || sentence === error.message) return error;
  return new AgentError(error.code, sentence, {
    retryable: error.retryable,
    source: error.source,
    ...(error.retryAfterMs !== undefined && { retryAfterMs: error.retryAfterMs }),
  });
}

/** {@link publicError} for an error as plain data (as events and results carry it). */
export function publicErrorData(data: AgentErrorData): AgentErrorData {
  const sentence = FIXED_ERROR_SENTENCES[data.code];
  return sentence === undefined ? data : { ...data, message: sentence };
}

/** An error from plain data, for `onError` (which takes an `AgentError`). */
export function errorFromData(data: AgentErrorData): AgentError {
  return new AgentError(data.code, data.message, { retryable: data.retryable, source: data.source });
}

/** Anything thrown, as the `AgentError` that `onError` gets (a plain throw is `INTERNAL_ERROR`). */
export function asAgentError(error: unknown): AgentError {
  if (AgentError.isInstance(error)) return error;
  const detail = error instanceof Error ? error.message : String(error);
  return new AgentError('INTERNAL_ERROR', detail, { cause: error });
}
