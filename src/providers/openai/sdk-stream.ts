/**
 * What both OpenAI-type providers do with the `openai` SDK's HTTP layer: read a streamed answer
 * from its raw response (so the provider sees `[DONE]` itself), and turn whatever the SDK, the
 * connection or the stream threw into an `AgentError`.
 * @module
 */
import { APIConnectionError, APIError, APIUserAbortError, OpenAIError } from 'openai/core/error';
import { AgentError } from '../../agent-error.js';
import * as Errors from '../../error-constructors.js';
import type { ChatChunkStream } from './chat-client.js';
import { chunkStream, MalformedChunkError } from './chunk-stream.js';
import {
  clientError,
  connectionError,
  errorBodyMessage,
  httpStatusError,
  malformedChunkError,
  streamErrorObjectError,
} from './errors.js';
import type { SecretRedactor } from './redact-secrets.js';

/**
 * The stream of a pending request. An SDK client's answer is read from its raw response
 * (`asResponse()`, which every `APIPromise` has): the SDK's own chunk stream would hide `[DONE]`.
 * @example
 * const stream = await openStream(client.responses.create(body, options), options.signal);
 */
export async function openStream(
  pending: PromiseLike<ChatChunkStream>,
  signal: AbortSignal,
): Promise<ChatChunkStream> {
  if (!hasRawResponse(pending)) return pending;
  const response = await pending.asResponse();
  // Aborting either the request's signal or the stream's controller stops reading the body.
  const controller = new AbortController();
  if (signal.aborted) controller.abort();
  else signal.addEventListener('abort', () => controller.abort(), { once: true });
  return chunkStream(response, controller);
}

/**
 * `error` as the `AgentError` a provider throws: a cancel, an HTTP status, a broken connection,
 * an error object in the stream, a malformed chunk, or the client's own failure.
 * @example
 * throw redactor.error(sdkFailure('openai', error, signal, redactor));
 */
export function sdkFailure(
  providerId: string,
  error: unknown,
  signal: AbortSignal,
  redactor: SecretRedactor,
): AgentError {
  if (signal.aborted || error instanceof APIUserAbortError) return Errors.requestCancelled();
  if (AgentError.isInstance(error)) return error;
  if (error instanceof APIConnectionError) return connectionError(providerId, error);
  if (error instanceof APIError) {
    if (typeof error.status !== 'number') return streamErrorObjectError(providerId, error.error, error);
    return httpStatusError(providerId, {
      status: error.status,
      serverMessage: errorBodyMessage(error.error) ?? sdkMessageWithoutStatus(error),
      headers: error.headers,
      cause: error,
    });
  }
  if (error instanceof OpenAIError) return clientError(providerId, error);
  if (error instanceof MalformedChunkError) {
    return malformedChunkError(providerId, redactor.text(error.data), error);
  }
  // From the SDK's own stream: its message quotes a cut of the data, which may cut a secret.
  if (error instanceof SyntaxError) return malformedChunkError(providerId);
  return connectionError(providerId, error);
}

/** A failure of the connection itself (reset, closed), not an error the server reported. */
export function isTransportFailure(error: unknown): boolean {
  return !(error instanceof OpenAIError) && !(error instanceof SyntaxError) && !AgentError.isInstance(error);
}

/** An `openai` SDK `APIPromise`: its raw `Response` is there, the body not yet read. */
function hasRawResponse(
  pending: PromiseLike<ChatChunkStream>,
): pending is PromiseLike<ChatChunkStream> & { asResponse(): Promise<Response> } {
  return typeof (pending as { asResponse?: unknown }).asResponse === 'function';
}

/** The body could not be read as JSON: the SDK's message is `<status> <body text>`. */
function sdkMessageWithoutStatus(error: APIError): string | undefined {
  const text = error.message.replace(/^\d{3}\s*/, '');
  return text && text !== 'status code (no body)' ? text : undefined;
}
