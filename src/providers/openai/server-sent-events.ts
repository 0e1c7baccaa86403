/**
 * A `text/event-stream` body → its events, decoded as the HTML standard's event-stream
 * interpretation says. Pure apart from reading the body, and SDK-free, so the provider sees
 * every event itself, including the `[DONE]` end marker that the `openai` SDK's stream swallows.
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
 * throws the signal's reason, or an `AbortError`.
 * @example
 * for await (const { event, data } of serverSentEvents(response.body!, controller.signal)) {
 *   if (data === '[DONE]') break;
 * }
 */
export async function* serverSentEvents(
  body: ReadableStream<Uint8Array>,
  signal: AbortSignal,
): AsyncGenerator<ServerSentEvent, void, undefined> {
  const reader = body.getReader();
  // `cancel()` ends a pending read as "done": the abort check after each read tells it apart.
  const cancel = () => void reader.cancel().catch(() => {});
  signal.addEventListener('abort', cancel, { once: true });
  const decoder = new TextDecoder();
  const pending = new EventBuilder();
  let buffer = '';
  let finished = false;
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
        if (event) yield event;
      }
      buffer = buffer.slice(lineStart);
      if (done) {
        finished = true;
        return;
      }
    }
  } finally {
    signal.removeEventListener('abort', cancel);
    if (!finished) cancel();
  }
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
