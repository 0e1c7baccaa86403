/**
 * A `text/event-stream` body → its events, decoded as the HTML standard's event-stream
 * interpretation says. Pure apart from reading the body, and SDK-free, so the provider sees
 * every event itself, including the `[DONE]` end marker that the `openai` SDK's stream swallows.
 * The MCP client reads its servers' SSE answers with it too.
 * @module
 */

/** One dispatched event: its type (`message` unless an `event:` line said otherwise) and data. */
export interface ServerSentEvent {
  event: string;
  data: string;
}

const LINE_END = /\r\n|\r|\n/g;

/**
 * The events of `body`, in order, as they complete.
 *
 * - Lines end with CRLF, LF or CR (also when a CRLF is split across two reads); UTF-8 characters
 *   split across reads are decoded whole; a leading byte-order mark is dropped.
 * - Lines starting with `:` are comments; `data:` lines of one event are joined with `\n`; one
 *   space after the colon is dropped; `id:`, `retry:` and unknown fields are ignored.
 * - A blank line dispatches the event, unless it has no data line at all.
 * - An event the body ends in the middle of (no blank line after it) is not dispatched: it may be
 *   cut short.
 *
 * Stops reading (and cancels the body) when the consumer stops early or `signal` aborts; an abort
 * throws the signal's reason, or an `AbortError`. A consumer that stops right after the end
 * marker (`options.isEnd`) leaves the body to end by itself, so its connection can be reused.
 * @example
 * for await (const { event, data } of serverSentEvents(response.body!, controller.signal)) {
 *   if (data === '[DONE]') break;
 * }
 */
export async function* serverSentEvents(
  body: ReadableStream<Uint8Array>,
  signal: AbortSignal,
  options: ServerSentEventsOptions = {},
): AsyncGenerator<ServerSentEvent, void, undefined> {
  const reader = body.getReader();
  // `cancel()` ends a pending read as "done": the abort check after each read tells it apart.
  const cancel = () => void reader.cancel().catch(() => {});
  signal.addEventListener('abort', cancel, { once: true });
  const decoder = new TextDecoder();
  const pending = new EventBuilder();
  let buffer = '';
  let finished = false;
  let ended = false;
  try {
    for (;;) {
      throwIfAborted(signal);
      const { value, done } = await reader.read();
      throwIfAborted(signal);
      buffer += done ? decoder.decode() : decoder.decode(value, { stream: true });
      let lineStart = 0;
      LINE_END.lastIndex = 0;
      for (let match = LINE_END.exec(buffer); match; match = LINE_END.exec(buffer)) {
        // A CR at the end of what has arrived may be the first half of a CRLF.
        if (!done && match[0] === '\r' && match.index === buffer.length - 1) break;
        const event = pending.line(buffer.slice(lineStart, match.index));
        lineStart = LINE_END.lastIndex;
        if (event) {
          ended = options.isEnd?.(event) === true;
          yield event;
        }
      }
      buffer = buffer.slice(lineStart);
      if (done) {
        finished = true;
        return;
      }
    }
  } finally {
    signal.removeEventListener('abort', cancel);
    if (!finished) {
      if (ended && !signal.aborted) release(reader, cancel);
      else cancel();
    }
  }
}

/** Options of {@link serverSentEvents}. */
export interface ServerSentEventsOptions {
  /**
   * Whether `event` is the stream's end marker. When the consumer stops right after one, the
   * body is not cancelled but let run to its end (see {@link release}).
   */
  isEnd?: (event: ServerSentEvent) => boolean;
}

/** How long a body may take to end after its end marker before it is cancelled. */
const RELEASE_MS = 1_000;

/**
 * Lets a body end on its own after its end marker, in the background. Cancelling it instead
 * makes the HTTP client close the connection whenever the last bytes (a chunked body's
 * terminator) are still on their way, so the next request opens a new one (a new TLS handshake
 * against a real server). A body that sends more data, or does not end within
 * {@link RELEASE_MS}, is cancelled after all. Nothing waits for this.
 */
function release(reader: ReadableStreamDefaultReader<Uint8Array>, cancel: () => void): void {
  const timer = setTimeout(cancel, RELEASE_MS);
  // Under Node, a pending release must not keep the process alive.
  (timer as { unref?: () => void }).unref?.();
  reader.read().then(
    ({ done }) => {
      clearTimeout(timer);
      if (!done) cancel();
    },
    () => clearTimeout(timer),
  );
}

/** The fields of the event being read, line by line. */
class EventBuilder {
  #type = '';
  #data: string[] = [];

  /** Takes one line (without its line end); returns the event a blank line completes. */
  line(line: string): ServerSentEvent | undefined {
    if (line === '') return this.#dispatch();
    if (line.startsWith(':')) return undefined;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') this.#data.push(value);
    else if (field === 'event') this.#type = value;
    return undefined;
  }

  #dispatch(): ServerSentEvent | undefined {
    const event =
      this.#data.length > 0 ? { event: this.#type || 'message', data: this.#data.join('\n') } : undefined;
    this.#type = '';
    this.#data = [];
    return event;
  }
}

function throwIfAborted(signal: AbortSignal): void {
  if (!signal.aborted) return;
  throw signal.reason instanceof Error
    ? signal.reason
    : new DOMException('The stream was aborted', 'AbortError');
}
