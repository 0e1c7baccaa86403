/**
 * Reads Server-Sent Events from a response body: each message's `id`, `event` and `data`,
 * comments (heartbeats) skipped. Bounded: a message whose data grows past the limit of its event
 * name is refused (a `ProtocolError`) before it is kept; a body that brings nothing for `idleMs` is cancelled and ends
 * there (a half-open connection would otherwise leave `read()` waiting for ever). `onComment`
 * hears each comment (a heartbeat). Each chunk is scanned once, so a long line costs its length,
 * not its length times its chunks.
 * @module
 */

import { ProtocolError } from './remote-http.js';

/** One message of the stream. */
export interface SseMessage {
  id: string | null;
  event: string;
  data: string;
}

/**
 * The messages of `body`, in order, as they arrive. `maxBytes` bounds a message's data, or gives
 * the bound of each event name (the `event:` line comes before the `data:` lines it bounds).
 * @example
 * for await (const { event, data } of readSse(response.body!, 1 << 20, 45_000)) console.log(event, data);
 */
export async function* readSse(
  body: ReadableStream<Uint8Array>,
  maxBytes: number | ((event: string) => number),
  idleMs: number,
  onComment?: () => void,
): AsyncGenerator<SseMessage> {
  const limitOf = typeof maxBytes === 'number' ? () => maxBytes : maxBytes;
  const reader = body.getReader();
  const decoder = new TextDecoder();
  /** The start of the line being read, in parts (a line may span many chunks). */
  let parts: string[] = [];
  let partsLength = 0;
  let id: string | null = null;
  let event = 'message';
  let limit = limitOf(event);
  let data: string[] = [];
  let size = 0;
  const tooLarge = () => new ProtocolError(`a message is over ${limit} bytes`);
  /** Takes one complete line; a message to yield when it was the blank line ending one. */
  const line = (raw: string): SseMessage | null => {
    const whole = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (whole === '') {
      const message =
        data.length > 0 ? { id, event, data: data.length === 1 ? data[0]! : data.join('\n') } : null;
      event = 'message';
      limit = limitOf(event);
      data = [];
      size = 0;
      return message;
    }
    if (whole.startsWith(':')) {
      onComment?.();
      return null;
    }
    const colon = whole.indexOf(':');
    const field = colon < 0 ? whole : whole.slice(0, colon);
    let text = colon < 0 ? '' : whole.slice(colon + 1);
    if (text.startsWith(' ')) text = text.slice(1);
    if (field === 'data') {
      size += text.length;
      if (size > limit) throw tooLarge();
      data.push(text);
    } else if (field === 'event') {
      event = text;
      limit = limitOf(event);
    } else if (field === 'id') id = text;
    return null;
  };
  try {
    for (;;) {
      // Cancelling the reader settles a pending read() as done, whatever the fetch behind it does.
      const timer = setTimeout(() => void reader.cancel().catch(() => {}), idleMs);
      const { done, value } = await reader.read().finally(() => clearTimeout(timer));
      if (done) return;
      const chunk = decoder.decode(value, { stream: true });
      let from = 0;
      let newline: number;
      while ((newline = chunk.indexOf('\n', from)) >= 0) {
        let raw = chunk.slice(from, newline);
        if (parts.length > 0) {
          parts.push(raw);
          raw = parts.join('');
          parts = [];
          partsLength = 0;
        }
        from = newline + 1;
        const message = line(raw);
        if (message) yield message;
      }
      if (from < chunk.length) {
        parts.push(chunk.slice(from));
        partsLength += chunk.length - from;
        // A line longer than its message may be is refused before the rest of it arrives.
        if (partsLength > limit + 1024) throw tooLarge();
      }
    }
  } finally {
    void reader.cancel().catch(() => {});
  }
}
