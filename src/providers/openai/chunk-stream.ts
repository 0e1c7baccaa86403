/**
 * A streaming Chat Completions response → its JSON chunks, with the end marker kept: the
 * iteration returns {@link END_MARKER_SEEN} when the server sent `data: [DONE]`, and nothing when
 * the body just ended. The provider needs that difference (a response without a finish reason is
 * complete after `[DONE]`, broken without it), and the `openai` SDK's own stream hides it.
 * @module
 */
import { OpenAIError } from 'openai/core/error';
import type { ChatChunkStream } from './chat-client.js';
import { serverSentEvents } from './server-sent-events.js';

/**
 * An event whose data is not JSON. It keeps the data itself rather than the parser's message,
 * which quotes a cut of the data (and so possibly the first half of a secret the server echoed).
 */
export class MalformedChunkError extends SyntaxError {
  override readonly name = 'MalformedChunkError';

  constructor(readonly data: string) {
    super('a stream chunk is not valid JSON');
  }
}

/** What the chunk iteration returns when the stream ended with `data: [DONE]`. */
export const END_MARKER_SEEN = 'end-marker-seen';

/**
 * The chunks of `response`, a 2xx `text/event-stream` response. Aborting `controller` stops the
 * reading and closes the body.
 *
 * - Each event's data is parsed as JSON ({@link MalformedChunkError} for data that is not).
 * - `[DONE]` ends the iteration (what follows is not read) with {@link END_MARKER_SEEN}; the body
 *   is left to end by itself, so the connection can serve the next request.
 * - An `event: error` becomes a chunk `{ error }` (its data's `error`, else its data), so that an
 *   error sent either way reaches the provider as an error object.
 * @example
 * const stream = chunkStream(response, new AbortController());
 * for await (const chunk of stream) console.log(chunk);
 */
export function chunkStream(response: Response, controller: AbortController): ChatChunkStream {
  return { controller, [Symbol.asyncIterator]: () => chunks(response, controller.signal) };
}

/** The SDK's test, so both read the same streams the same way. */
const isEndMarker = (data: string) => data.startsWith('[DONE]');
const END_OPTIONS = { isEnd: (event: { data: string }) => isEndMarker(event.data) };

async function* chunks(
  response: Response,
  signal: AbortSignal,
): AsyncGenerator<unknown, typeof END_MARKER_SEEN | undefined, undefined> {
  if (!response.body) {
    throw new OpenAIError('the response has no body to stream (this fetch cannot stream responses)');
  }
  for await (const { event, data } of serverSentEvents(response.body, signal, END_OPTIONS)) {
    if (isEndMarker(data)) return END_MARKER_SEEN;
    let chunk: unknown;
    try {
      chunk = JSON.parse(data);
    } catch {
      throw new MalformedChunkError(data);
    }
    yield event === 'error' ? { error: errorOf(chunk) } : chunk;
  }
  return undefined;
}

function errorOf(data: unknown): unknown {
  const inner = typeof data === 'object' && data !== null ? (data as { error?: unknown }).error : undefined;
  return inner || data || { message: 'the server sent an error event' };
}
