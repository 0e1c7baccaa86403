/**
 * `FrameLog`: the frames one copy of a session sent while its current turn runs, numbered, kept
 * for replay, and handed to every open stream as they come. Each frame is encoded once, whatever
 * number of streams carry it. When a turn ends its frames are dropped ({@link FrameLog.clear}):
 * a client that reconnects from before that point gets the state, which carries the last turn's
 * result, so an idle session keeps nothing of its answers' frames.
 *
 * The copy's `token` is new each time an instance opens the session, so an id from another copy
 * (another instance, a restart, an earlier opening) is never mistaken for a position in this one.
 * @module
 */
import { frameId, parseFrameId, type FrameKind } from '../remote/wire.js';

/** How many frames a copy keeps for replay at most. */
export const KEPT_FRAMES = 20_000;

/** How many bytes of frames a copy keeps for replay at most (older ones are dropped first). */
export const KEPT_BYTES = 16 * 1024 * 1024;

/** One frame, ready to write to a stream. */
export interface FrameRecord {
  seq: number;
  kind: FrameKind;
  /** The turn a frame belongs to (`result` frames), else `null`. */
  turnId: string | null;
  /** The SSE bytes: `id:`, `event:`, `data:` lines and the blank line. */
  bytes: Uint8Array;
}

/** A new random token: 12 characters of `[a-z0-9]`. */
function newToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(9));
  return Array.from(bytes, (b) => (b % 36).toString(36)).join('') + Date.now().toString(36).slice(-3);
}

const encoder = /* @__PURE__ */ new TextEncoder();

/** The SSE bytes of one frame. */
export function encodeFrame(id: string, kind: FrameKind, data: unknown): Uint8Array {
  // JSON.stringify escapes line breaks, so the data is one `data:` line.
  return encoder.encode(`id: ${id}\nevent: ${kind}\ndata: ${JSON.stringify(data)}\n\n`);
}

/** The frames of one copy of a session. */
export class FrameLog {
  readonly token = newToken();
  #seq = 0;
  /** The seq of the first kept frame minus one: a position at or after it can be replayed. */
  #base = 0;
  #records: FrameRecord[] = [];
  #head = 0;
  #bytes = 0;
  readonly #listeners = new Set<(record: FrameRecord | null) => void>();

  /** The number of the last frame (0 before the first). */
  get seq(): number {
    return this.#seq;
  }

  /** How many frames are kept for replay. */
  get kept(): number {
    return this.#records.length - this.#head;
  }

  /** The id of the position after the last frame (what a `state` frame taken now carries). */
  get position(): string {
    return frameId(this.token, this.#seq);
  }

  /** Adds a frame and hands it to every listener. */
  push(kind: FrameKind, data: unknown, turnId: string | null = null): FrameRecord {
    const seq = ++this.#seq;
    const record = { seq, kind, turnId, bytes: encodeFrame(frameId(this.token, seq), kind, data) };
    this.#records.push(record);
    this.#bytes += record.bytes.byteLength;
    while (this.kept > KEPT_FRAMES || (this.#bytes > KEPT_BYTES && this.kept > 1)) this.#dropOldest();
    for (const listener of [...this.#listeners]) listener(record);
    return record;
  }

  /** Drops every kept frame: a position before now can no longer be replayed. */
  clear(): void {
    this.#records = [];
    this.#head = 0;
    this.#bytes = 0;
    this.#base = this.#seq;
  }

  /**
   * The frames after the position `lastEventId` names, or `null` when this copy cannot tell
   * (another copy's id, none, or older than what is kept): the stream then starts with a state.
   */
  after(lastEventId: string | null): FrameRecord[] | null {
    const id = parseFrameId(lastEventId);
    if (id === null || id.token !== this.token || id.seq > this.#seq || id.seq < this.#base) return null;
    return this.#records.slice(this.#head + (id.seq - this.#base));
  }

  /** Listens to new frames; `null` when the copy ends. Returns the unsubscribe function. */
  listen(listener: (record: FrameRecord | null) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Ends the copy: every listener hears `null` once. */
  end(): void {
    for (const listener of [...this.#listeners]) listener(null);
    this.#listeners.clear();
  }

  #dropOldest(): void {
    const dropped = this.#records[this.#head]!;
    this.#records[this.#head++] = undefined as unknown as FrameRecord;
    this.#bytes -= dropped.bytes.byteLength;
    this.#base = dropped.seq;
    // Compact now and then, so dropping stays O(1) on average.
    if (this.#head > 1024 && this.#head * 2 > this.#records.length) {
      this.#records = this.#records.slice(this.#head);
      this.#head = 0;
    }
  }
}
