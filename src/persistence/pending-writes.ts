/**
 * `PendingWrites`: what a session has handed to storage and not yet seen settle. Messages are
 * persisted as they are appended, without the machine waiting on storage mid-stream: each write
 * is handed to the storage at once, in append order
 * (without waiting for the previous one, so a batching storage such as IndexedDB can group a
 * burst); `drain()` waits for everything handed over so far — at the end of each turn and at
 * close, so `turn.result` resolves only once the turn is durable. A failed write is reported and
 * the conversation goes on in memory.
 * @module
 */
import { AgentError, describeError } from '../errors.js';
import type { SessionStorage } from '../ports/storage.js';
import type { SessionEvent } from '../types.js';

/** What a session has handed to storage and not yet seen settle. */
export class PendingWrites {
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    private readonly sessionId: string,
    private readonly storage: SessionStorage | null,
    private readonly onError: (error: AgentError) => void,
  ) {}

  /** Hands one event to the storage (a no-op without storage). */
  enqueue(event: SessionEvent): void {
    if (!this.storage) return;
    let write: Promise<void>;
    try {
      write = Promise.resolve(this.storage.saveEvent(this.sessionId, event));
    } catch (error) {
      write = Promise.reject(error);
    }
    const tracked = write.then(
      () => undefined,
      (error: unknown) => this.onError(asStorageError(error)),
    );
    this.inFlight.add(tracked);
    void tracked.finally(() => this.inFlight.delete(tracked));
  }

  /** Resolves once every write enqueued so far has settled. Never rejects. */
  async drain(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight]);
  }
}

/** Any storage failure, as a `STORAGE_ERROR` (the original kept as `cause`). */
function asStorageError(error: unknown): AgentError {
  if (AgentError.isInstance(error) && error.code === 'STORAGE_ERROR') return error;
  return new AgentError('STORAGE_ERROR', `saving a session event failed: ${describeError(error)}`, {
    cause: error,
  });
}
