/**
 * `SseWriter`: the one way the handler streams Server-Sent Events. It hands the response body
 * one chunk at a time, as fast as the client takes them, and keeps what waits behind the chunk
 * being written in a queue bounded in bytes:
 *
 * - a frame that would take the queue past `maxBufferedBytes` disconnects the client instead
 *   (it reconnects with `Last-Event-ID` and is replayed what it missed); a single frame larger
 *   than the bound, with nothing queued before it, is still sent;
 * - a heartbeat comment goes out every `heartbeatMs`, only when nothing waits (a waiting frame
 *   shows the stream alive as well as a heartbeat would, and a heartbeat queued behind it would
 *   only add to the queue);
 * - a chunk that has not been taken for `stallTimeoutMs` closes the stream: a client that stopped
 *   reading no longer holds the session.
 *
 * Closing, for whatever reason, runs `onClose` once. The answer carries the heartbeat interval in
 * the `youyou-heartbeat-ms` header, for the client's watchdog.
 * @module
 */

/** A comment line every 15 s keeps proxies from closing a quiet stream. */
export const HEARTBEAT_MS = 15_000;

/** The response header that tells the client the heartbeat interval, in milliseconds. */
export const HEARTBEAT_HEADER = 'youyou-heartbeat-ms';

/** The headers of every Server-Sent Events answer (no caching, no buffering by proxies). */
export const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-store',
  'x-accel-buffering': 'no',
};

/**
 * Settings tests may change (internal, not part of the public API): the heartbeat interval, and
 * a callback told of every writer opened, to watch its queue.
 */
export const sseWriterSettings: { heartbeatMs: number; onOpen: ((writer: SseWriter) => void) | null } = {
  heartbeatMs: HEARTBEAT_MS,
  onOpen: null,
};

/** Why a stream closed. */
export type SseCloseReason = 'ended' | 'aborted' | 'overflow' | 'stalled' | 'cancelled';

/** What a writer is opened with. */
export interface SseWriterOptions {
  /** The most bytes that may wait behind the chunk being written. */
  maxBufferedBytes: number;
  /** A chunk not taken for this long closes the stream. */
  stallTimeoutMs: number;
  /** Aborts when the client goes away. */
  signal: AbortSignal;
  /** Called once when the stream closes. */
  onClose?: (reason: SseCloseReason) => void;
  /** Headers to answer with instead of the event stream's own (a protocol of another client). */
  headers?: Record<string, string>;
}

const PING = /* @__PURE__ */ new TextEncoder().encode(': ping\n\n');

/** One SSE response. */
export class SseWriter {
  /** The response to answer with (status 200, the SSE headers). */
  readonly response: Response;
  readonly #options: SseWriterOptions;
  #controller!: ReadableStreamDefaultController<Uint8Array>;
  readonly #queue: Uint8Array[] = [];
  #queued = 0;
  #peak = 0;
  /** The client asked for a chunk and none was there: the next one goes to it at once. */
  #wanted = false;
  /** A chunk was handed over and the client has not asked for the next yet. */
  #writing = false;
  #open = true;
  /** `close('ended')` was asked while chunks waited: the stream ends once they are taken. */
  #endAfterQueue = false;
  #reason: SseCloseReason | null = null;
  #stall: ReturnType<typeof setTimeout> | null = null;
  readonly #heartbeat: ReturnType<typeof setInterval>;
  readonly #abort = () => this.close('aborted');
  #settleClosed!: (reason: SseCloseReason) => void;
  /** Settles with the reason once the stream closed. */
  readonly closed = new Promise<SseCloseReason>((resolve) => (this.#settleClosed = resolve));

  constructor(options: SseWriterOptions) {
    this.#options = options;
    const heartbeatMs = sseWriterSettings.heartbeatMs;
    const body = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          this.#controller = controller;
        },
        pull: () => this.#pull(),
        cancel: () => this.#closed('cancelled'),
      },
      { highWaterMark: 0 },
    );
    this.response = new Response(body, {
      status: 200,
      headers: { ...(options.headers ?? SSE_HEADERS), [HEARTBEAT_HEADER]: String(heartbeatMs) },
    });
    this.#heartbeat = setInterval(() => {
      if (this.#queued === 0 && !this.#writing) this.write(PING);
    }, heartbeatMs);
    (this.#heartbeat as { unref?: () => void }).unref?.();
    options.signal.addEventListener('abort', this.#abort);
    sseWriterSettings.onOpen?.(this);
    if (options.signal.aborted) this.close('aborted');
  }

  /** Whether the stream is still open. */
  get open(): boolean {
    return this.#open;
  }

  /** Why the stream closed; `null` while it is open. */
  get closeReason(): SseCloseReason | null {
    return this.#reason;
  }

  /** The bytes waiting behind the chunk being written. */
  get bufferedBytes(): number {
    return this.#queued;
  }

  /** The most bytes that ever waited behind the chunk being written. */
  get peakBufferedBytes(): number {
    return this.#peak;
  }

  /**
   * Queues `chunk` (the same bytes may go to many writers: they are never changed). Returns
   * whether the stream is still open; a chunk that overflows the bound closes it instead.
   */
  write(chunk: Uint8Array): boolean {
    // A stream asked to end takes nothing more: it ends after what it queued.
    if (!this.#open || this.#endAfterQueue) return false;
    if (this.#wanted) {
      this.#wanted = false;
      this.#hand(chunk);
      return true;
    }
    // A frame larger than the bound still goes out when nothing else waits: only a client that
    // has a queue already, and would let it grow past the bound, is too far behind.
    if (this.#queued > 0 && this.#queued + chunk.byteLength > this.#options.maxBufferedBytes) {
      this.close('overflow');
      return false;
    }
    this.#queue.push(chunk);
    this.#queued += chunk.byteLength;
    if (this.#queued > this.#peak) this.#peak = this.#queued;
    return true;
  }

  /**
   * Closes the stream. `ended` lets the client read what was queued first; any other reason
   * drops it and breaks the connection, so the client reconnects.
   */
  close(reason: SseCloseReason = 'ended'): void {
    if (!this.#open) return;
    if (reason === 'ended' && (this.#queued > 0 || this.#writing)) {
      // The queue drains first; the stream ends once the client took the last chunk.
      this.#endAfterQueue = true;
      return;
    }
    this.#closed(reason);
    try {
      if (reason === 'ended') this.#controller.close();
      else this.#controller.error(new Error(`the stream was closed (${reason})`));
    } catch {
      // already closed by the client
    }
  }

  #pull(): void {
    this.#writing = false;
    if (this.#stall !== null) clearTimeout(this.#stall);
    this.#stall = null;
    if (!this.#open) return;
    const next = this.#queue.shift();
    if (next !== undefined) {
      this.#queued -= next.byteLength;
      this.#hand(next);
    } else if (this.#endAfterQueue) {
      this.#endAfterQueue = false;
      this.close('ended');
    } else {
      this.#wanted = true;
    }
  }

  /** Hands one chunk to the client and watches that it is taken. */
  #hand(chunk: Uint8Array): void {
    this.#writing = true;
    this.#controller.enqueue(chunk);
    this.#stall = setTimeout(() => this.close('stalled'), this.#options.stallTimeoutMs);
    (this.#stall as { unref?: () => void }).unref?.();
  }

  #closed(reason: SseCloseReason): void {
    if (!this.#open) return;
    this.#open = false;
    this.#reason = reason;
    this.#queue.length = 0;
    this.#queued = 0;
    clearInterval(this.#heartbeat);
    if (this.#stall !== null) clearTimeout(this.#stall);
    this.#options.signal.removeEventListener('abort', this.#abort);
    this.#options.onClose?.(reason);
    this.#settleClosed(reason);
  }
}
