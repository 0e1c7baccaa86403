/**
 * `FrameLog`: the frames one copy of a session sent, numbered, kept for replay, and handed to
 * every open stream as they come. The copy's `token` is new each time an instance opens the
 * session, so an id from another copy (another instance, a restart, an earlier opening) is never
 * mistaken for a position in this one.
 * @module
 */
import { frameId, parseFrameId, type FrameKind } from '../remote/wire.js';

/** How many frames a copy keeps for replay (a long answer is two frames a delta). */
export const KEPT_FRAMES = 20_000;

/** One frame, ready to write to a stream. */
export interface FrameRecord {
  seq: number;
  kind: FrameKind;
  /** The turn a frame belongs to (`event` and `result` frames), else `null`. */
  turnId: string | null;
  /** The SSE text: `id:`, `event:`, `data:` lines and the blank line. */
  text: string;
}

/** A new random token: 12 characters of `[a-z0-9]`. */
function newToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(9));
  return Array.from(bytes, (b) => (b % 36).toString(36)).join('') + Date.now().toString(36).slice(-3);
}

/** The SSE text of one frame. */
export function frameText(id: string, kind: FrameKind, data: unknown): string {
  // JSON.stringify escapes line breaks, so the data is one `data:` line.
  return `id: ${id}\nevent: ${kind}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** The frames of one copy of a session. */
export class FrameLog {
  readonly token = newToken();
  #seq = 0;
  #records: FrameRecord[] = [];
  readonly #listeners = new Set<(record: FrameRecord | null) => void>();

  /** The number of the last frame (0 before the first). */
  get seq(): number {
    return this.#seq;
  }

  /** The id of the position after the last frame (what a `state` frame taken now carries). */
  get position(): string {
    return frameId(this.token, this.#seq);
  }

  /** Adds a frame and hands it to every listener. */
  push(kind: FrameKind, data: unknown, turnId: string | null = null): FrameRecord {
    const seq = ++this.#seq;
    const record = { seq, kind, turnId, text: frameText(frameId(this.token, seq), kind, data) };
    this.#records.push(record);
    if (this.#records.length > KEPT_FRAMES * 1.25) this.#records = this.#records.slice(-KEPT_FRAMES);
    for (const listener of [...this.#listeners]) listener(record);
    return record;
  }

  /**
   * The frames after the position `lastEventId` names, or `null` when this copy cannot tell
   * (another copy's id, none, or older than what is kept): the stream then starts with a state.
   */
  after(lastEventId: string | null): FrameRecord[] | null {
    const id = parseFrameId(lastEventId);
    if (id === null || id.token !== this.token || id.seq > this.#seq) return null;
    const first = this.#records[0]?.seq ?? this.#seq + 1;
    if (id.seq < first - 1) return null;
    return this.#records.slice(id.seq - first + 1);
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
}
