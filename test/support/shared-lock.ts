/**
 * {@link SharedSessionLock}: a session lock shared by several handlers in one process, standing
 * in for a database lock across instances. Each instance takes its view with `forHolder(name)`;
 * `crash(name)` drops that holder's leases without telling it (a lease that expired because its
 * instance died), so another instance may take them with `'ifAvailable'`.
 * @module
 */
import type { LockLease, LockMode, SessionLock } from '../../src/index.js';

interface Held {
  holder: string;
  lose: () => void;
  released: boolean;
}

/** One lock table for several instances. */
export class SharedSessionLock {
  readonly #held = new Map<string, Held>();
  readonly #waiters = new Map<string, (() => void)[]>();
  /** How many leases were taken by a steal. */
  steals = 0;

  /** The lock as instance `holder` sees it. */
  forHolder(holder: string): SessionLock {
    return { acquire: (id, mode, signal) => this.#acquire(holder, id, mode, signal) };
  }

  /** Who holds `sessionId`, or `null`. */
  holderOf(sessionId: string): string | null {
    return this.#held.get(sessionId)?.holder ?? null;
  }

  /** `holder` died: its leases are gone (never `lost`: nobody is left to hear it). */
  crash(holder: string): void {
    for (const [id, held] of this.#held) {
      if (held.holder !== holder) continue;
      held.released = true;
      this.#held.delete(id);
      this.#wake(id);
    }
  }

  async #acquire(
    holder: string,
    id: string,
    mode: LockMode,
    signal?: AbortSignal,
  ): Promise<LockLease | null> {
    for (;;) {
      const current = this.#held.get(id);
      if (!current) return this.#grant(holder, id);
      if (mode === 'ifAvailable') return null;
      if (mode === 'steal') {
        this.steals++;
        current.released = true;
        this.#held.delete(id);
        current.lose();
        return this.#grant(holder, id);
      }
      await new Promise<void>((resolve, reject) => {
        if (signal?.aborted) return reject(signal.reason);
        const list = this.#waiters.get(id) ?? [];
        list.push(resolve);
        this.#waiters.set(id, list);
        signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
      });
    }
  }

  #grant(holder: string, id: string): LockLease {
    let lose!: () => void;
    const lost = new Promise<void>((resolve) => (lose = resolve));
    const held: Held = { holder, lose, released: false };
    this.#held.set(id, held);
    return {
      lost,
      release: () => {
        if (held.released) return;
        held.released = true;
        if (this.#held.get(id) === held) this.#held.delete(id);
        this.#wake(id);
      },
    };
  }

  #wake(id: string): void {
    const list = this.#waiters.get(id);
    this.#waiters.delete(id);
    for (const wake of list ?? []) wake();
  }
}
