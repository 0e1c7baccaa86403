/**
 * {@link HeldLease}: a lease of `PostgresSessionLock` while its holder has it: renewed every
 * third of `leaseMs`, lost when another holder took it or when it could not be renewed in time.
 * @module
 */
import type { LockLease } from '../ports/session-lock.js';

/** What a lease needs from its lock. */
export interface LeaseHooks {
  leaseMs: number;
  /** Renews the lease in the database: `false` when another holder has it now. */
  renew(): Promise<boolean>;
  /** Deletes the lease row (if it is still this lease's). */
  release(): Promise<void>;
  /** The lease ended (released or lost): the lock forgets it. */
  ended(): void;
}

/** A held lease; `lost` settles at most once and never rejects. */
export class HeldLease implements LockLease {
  readonly lost: Promise<void>;
  readonly sessionId: string;
  readonly token: string;
  readonly #hooks: LeaseHooks;
  #settle!: () => void;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #ended = false;
  /** When the lease last was known to be ours, plus `leaseMs`: past it, others may take it. */
  #validUntil: number;

  constructor(sessionId: string, token: string, hooks: LeaseHooks) {
    this.sessionId = sessionId;
    this.token = token;
    this.#hooks = hooks;
    this.lost = new Promise<void>((resolve) => (this.#settle = resolve));
    this.#validUntil = Date.now() + hooks.leaseMs;
    this.#schedule();
  }

  /** Gives the lease up (idempotent; a lost lease has nothing left to give). */
  release(): void {
    if (this.#end()) void this.#hooks.release().catch(() => {});
  }

  /** Another holder has the lease now: `lost` settles. */
  lose(): void {
    if (this.#end()) this.#settle();
  }

  #end(): boolean {
    if (this.#ended) return false;
    this.#ended = true;
    clearTimeout(this.#timer);
    this.#hooks.ended();
    return true;
  }

  #schedule(): void {
    // Unref'd: a process may exit while it holds leases; they run out after `leaseMs`.
    this.#timer = setTimeout(() => void this.#renew(), Math.max(10, Math.floor(this.#hooks.leaseMs / 3)));
    (this.#timer as { unref?: () => void }).unref?.();
  }

  async #renew(): Promise<void> {
    const startedAt = Date.now();
    let ours: boolean | undefined;
    try {
      ours = await this.#hooks.renew();
    } catch {
      ours = undefined; // Unknown: the database did not answer.
    }
    if (this.#ended) return;
    if (ours === false || (ours === undefined && Date.now() >= this.#validUntil)) return this.lose();
    if (ours) this.#validUntil = startedAt + this.#hooks.leaseMs;
    this.#schedule();
  }
}
