/**
 * `DraftCheckpoint`: the streaming text of a turn, saved through the storage's optional
 * `saveDraft` at most once per interval, so that a reload mid-stream can still show what was
 * written. One save at a time: while one is in flight, only the newest text waits for the next.
 * Cleared at the end of the turn and when the response is recorded as a message. A storage
 * without drafts makes this a no-op; a failing one is reported once and drafts stop for the
 * session (the conversation itself is never affected).
 * @module
 */
import { isoNow, type Clock } from '../clock.js';
import { AgentError, describeError } from '../errors.js';
import type { SessionDraft, SessionStorage } from '../ports/storage.js';
import { TIMED_OUT, withTimeout } from '../timeout.js';

/** How often a streaming draft is saved at most. */
const DRAFT_INTERVAL_MS = 1000;

/** Options of {@link DraftCheckpoint}. */
export interface DraftCheckpointOptions {
  clock: Clock;
  /** How long one save or clear may take before drafts stop for the session. */
  timeoutMs: number;
  onError(error: AgentError): void;
}

/** One session's draft saves. */
export class DraftCheckpoint {
  #lastSaveAt = Number.NEGATIVE_INFINITY;
  /** A draft is stored (or being stored) that a clear must remove. */
  #dirty = false;
  #inFlight: Promise<void> | null = null;
  #next: SessionDraft | null | undefined;
  /** No more saves: the storage keeps no drafts, failed, or the session is another writer's now. */
  #stopped: boolean;
  /** Saves handed to the storage so far (drafts and clears). */
  writes = 0;

  readonly #sessionId: string;
  readonly #storage: Pick<SessionStorage, 'saveDraft'> | null;
  readonly #options: DraftCheckpointOptions;

  constructor(
    sessionId: string,
    storage: Pick<SessionStorage, 'saveDraft'> | null,
    options: DraftCheckpointOptions,
  ) {
    this.#sessionId = sessionId;
    this.#storage = storage;
    this.#options = options;
    this.#stopped = typeof storage?.saveDraft !== 'function';
  }

  /** Whether drafts are saved (the storage keeps them, and nothing stopped them). */
  get enabled(): boolean {
    return !this.#stopped;
  }

  /** The streamed text grew (called per delta): saved if the interval since the last save has passed. */
  note(turnId: string, text: string): void {
    if (this.#stopped) return;
    const now = this.#options.clock.now();
    if (now - this.#lastSaveAt < DRAFT_INTERVAL_MS) return;
    this.#lastSaveAt = now;
    this.#dirty = true;
    this.#save({ turnId, text, updatedAt: isoNow(this.#options.clock) });
  }

  /** Removes the stored draft, if one was saved; resolves once the storage settled (bounded). */
  async clear(): Promise<void> {
    if (!this.enabled || !this.#dirty) return;
    this.#dirty = false;
    this.#lastSaveAt = Number.NEGATIVE_INFINITY;
    this.#save(null);
    await this.settled();
  }

  /** Removes a draft an earlier page stored (this one never saved it, so `clear` would not). */
  forget(): void {
    if (!this.enabled) return;
    this.#dirty = false;
    this.#save(null);
  }

  /** Stops saving drafts without a report (the session is another writer's now). */
  halt(): void {
    this.#stopped = true;
    this.#next = undefined;
  }

  /** Resolves once no save is in flight or waiting. */
  async settled(): Promise<void> {
    while (this.#inFlight) await this.#inFlight;
  }

  #save(draft: SessionDraft | null): void {
    if (this.#inFlight) {
      this.#next = draft;
      return;
    }
    this.#inFlight = this.#write(draft).finally(() => {
      this.#inFlight = null;
      const next = this.#next;
      this.#next = undefined;
      if (next !== undefined && !this.#stopped) this.#save(next);
    });
  }

  async #write(draft: SessionDraft | null): Promise<void> {
    this.writes++;
    try {
      const saved = await withTimeout(
        Promise.resolve(this.#storage!.saveDraft!(this.#sessionId, draft)),
        this.#options.timeoutMs,
        undefined,
        this.#options.clock,
      );
      if (saved === TIMED_OUT) this.#stop(`did not settle within ${this.#options.timeoutMs}ms`);
    } catch (error) {
      this.#stop(`failed: ${describeError(error)}`);
    }
  }

  #stop(what: string): void {
    if (this.#stopped) return;
    this.#stopped = true;
    this.#next = undefined;
    this.#options.onError(
      new AgentError('STORAGE_ERROR', `saving the streaming draft ${what}; drafts stop for this session`),
    );
  }
}
