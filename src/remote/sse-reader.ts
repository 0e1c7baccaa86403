/**
 * Reads Server-Sent Events from a response body: each message's `id`, `event` and `data`,
 * comments (heartbeats) skipped. Bounded: a message whose data grows past `maxBytes` is refused
 * before it is kept; a body that brings nothing for `idleMs` is cancelled and ends there (a
 * half-open connection would otherwise leave `read()` waiting for ever). `onComment` hears each
 * comment (a heartbeat).
 * @module
 */

/** One message of the stream. */
export interface SseMessage {
  id: string | null;
  event: string;
  data: string;
}

/** A stream that broke the rules it is read by (a message over the size limit). */
export class SseLimitError extends Error {}

/**
 * The messages of `body`, in order, as they arrive.
 * @example
 * for await (const { event, data } of readSse(response.body!, 1 << 20, 45_000)) console.log(event, data);
 */
export async function* readSse(
  body: ReadableStream<Uint8Array>,
  maxBytes: number,
  idleMs: number,
  onComment?: () => void,
): AsyncGenerator<SseMessage> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let id: string | null = null;
  let event = 'message';
  let data: string[] = [];
  let size = 0;
  try {
    for (;;) {
      // Cancelling the reader settles a pending read() as done, whatever the fetch behind it does.
      const timer = setTimeout(() => void reader.cancel().catch(() => {}), idleMs);
      const { done, value } = await reader.read().finally(() => clearTimeout(timer));
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      if (buffer.length > maxBytes + 1024) throw new SseLimitError(`a message is over ${maxBytes} bytes`);
      let newline: number;
      while ((newline = buffer.indexOf('\n')) >= 0) {
        let line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        if (line.endsWith('\r')) line = line.slice(0, -1);
        if (line === '') {
          if (data.length > 0) yield { id, event, data: data.join('\n') };
          event = 'message';
          data = [];
          size = 0;
          continue;
        }
        if (line.startsWith(':')) {
          onComment?.();
          continue;
        }
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        let text = colon < 0 ? '' : line.slice(colon + 1);
        if (text.startsWith(' ')) text = text.slice(1);
        if (field === 'data') {
          size += text.length;
          if (size > maxBytes) throw new SseLimitError(`a message is over ${maxBytes} bytes`);
          data.push(text);
        } else if (field === 'event') event = text;
        else if (field === 'id') id = text;
      }
    }
  } finally {
    void reader.cancel().catch(() => {});
  }
}
