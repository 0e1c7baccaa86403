/**
 * `PendingWrites`: what a session has handed to storage and not yet seen settle. Messages are
 * persisted as they are appended, without the machine waiting on storage mid-stream: each write
 * is handed to the storage at once, in append order
 * (without waiting for the previous one, so a batching storage such as IndexedDB can group a
 * burst); `drain()` waits for everything handed over so far — at the end of each turn and at
 * close, so `turn.result` resolves only once the turn is durable — or the write was reported as
 * failed or stuck. A failed write is reported and the conversation goes on in memory.
 * @module
 */
import { AgentError, describeError } from '../errors.js';
import type { SessionStorage } from '../ports/storage.js';
import type { SessionEvent } from '../types.js';
import { systemClock, type Clock } from '../clock.js';
import { TIMED_OUT, withTimeout } from '../timeout.js';

/** How long a write may take, and the clock that measures it. */
export interface PendingWritesOptions {
  /** A write not settled this long after it was handed over stops persistence (`storageTimeoutMs`). */
  timeoutMs: number;
  clock: Clock;
  /**
   * Called (instead of the error report) when the storage refused a write because another writer
   * claimed the session; persistence stops for this session.
   */
  onWriterReplaced?: () => void;
  /** Called once a write was stored (at most once per burst: a burst settles together). */
  onStored?: () => void;
}

/** What a session has handed to storage and not yet seen settle. */
export class PendingWrites {
  readonly #inFlight = new Map<Promise<void>, number>();
  #stopped = false;
  /** The epoch `claimWriter` gave this session's writer; sent with every write. */
  writerEpoch: number | null = null;

  readonly #sessionId: string;
  readonly #storage: SessionStorage | null;
  readonly #onError: (error: AgentError) => void;
  readonly #options: PendingWritesOptions;

  constructor(
    sessionId: string,
    storage: SessionStorage | null,
    onError: (error: AgentError) => void,
    options: PendingWritesOptions = { timeoutMs: 30_000, clock: systemClock },
  ) {
    this.#sessionId = sessionId;
    this.#storage = storage;
    this.#onError = onError;
    this.#options = options;
  }

  /** Whether persistence stopped for this session because a write did not settle in time. */
  get stopped(): boolean {
    return this.#stopped;
  }

  /** Whether a write was refused because another writer claimed the session. */
  replaced = false;

  /** Hands one event to the storage (a no-op without storage, or once persistence stopped). */
  enqueue(event: SessionEvent): void {
    if (!this.#storage || this.#stopped) return;
    let write: Promise<void>;
    try {
      write = Promise.resolve(
        this.writerEpoch === null
          ? this.#storage.saveEvent(this.#sessionId, event)
          : this.#storage.saveEvent(this.#sessionId, event, { writerEpoch: this.writerEpoch }),
      );
    } catch (error) {
      write = Promise.reject(error);
    }
    const tracked = write.then(
      () => this.#stored(),
      (error: unknown) => {
        if (this.#stopped) return;
        if (isWriterReplaced(error) && this.#options.onWriterReplaced) {
          this.#stopped = this.replaced = true;
          this.#options.onWriterReplaced();
        } else this.#onError(asStorageError(error));
      },
    );
    this.#inFlight.set(tracked, this.#options.clock.now());
    void tracked.finally(() => this.#inFlight.delete(tracked));
  }

  /**
   * Resolves once every write handed over so far has settled, or once one of them has been
   * pending for `timeoutMs`: then that write is reported and no longer awaited, and persistence
   * stops for this session — a later write could otherwise land before the stuck one and break
   * the stored order. Never rejects.
   */
  async drain(): Promise<void> {
    const { timeoutMs, clock } = this.#options;
    while (this.#inFlight.size > 0 && !this.#stopped) {
      const oldest = Math.min(...this.#inFlight.values());
      const left = Math.max(0, oldest + timeoutMs - clock.now());
      const settled = await withTimeout(Promise.all([...this.#inFlight.keys()]), left, undefined, clock);
      if (settled === TIMED_OUT && this.#inFlight.size > 0) this.#stop();
    }
  }

  #storedPending = false;

  #stored(): void {
    const { onStored } = this.#options;
    if (!onStored || this.#storedPending) return;
    this.#storedPending = true;
    queueMicrotask(() => {
      this.#storedPending = false;
      onStored();
    });
  }

  /** Stops persistence without a report: the session is no longer this writer's to write. */
  halt(): void {
    this.#stopped = true;
  }

  #stop(): void {
    this.#stopped = true;
    this.#onError(
      new AgentError(
        'STORAGE_ERROR',
        `saving a session event did not settle within ${this.#options.timeoutMs}ms: this session's later ` +
          'events are not saved (what was stored before stays, and the conversation goes on in memory)',
      ),
    );
  }
}

/** A storage's refusal because a later writer claimed the session (the code, or a cause's code). */
export function isWriterReplaced(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e !== undefined && depth < 3; depth++) {
    if (AgentError.isInstance(e) && e.code === 'SESSION_WRITER_REPLACED') return true;
    e = (e as { cause?: unknown } | null)?.cause;
  }
  return false;
}

/** Any storage failure, as a `STORAGE_ERROR` (the original kept as `cause`). */
function asStorageError(error: unknown): AgentError {
  if (AgentError.isInstance(error) && error.code === 'STORAGE_ERROR') return error;
  return new AgentError('STORAGE_ERROR', `saving a session event failed: ${describeError(error)}`, {
    cause: error,
  });
}
