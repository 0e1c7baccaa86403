/**
 * {@link HeldLease}: a lease of `PostgresSessionLock` while its holder has it: renewed every
 * third of `leaseMs`, lost when another holder took it or when it could not be renewed in time.
 * @module
 */
import type { LockLease } from '../ports/session-lock.js';
import { TIMED_OUT, withTimeout } from '../timeout.js';

/** What a lease needs from its lock. */
export interface LeaseHooks {
  leaseMs: number;
  /** Renews the lease in the database: `false` when another holder has it now. */
  renew(): Promise<boolean>;
  /** Records the turn its holder runs (`null`: none) in the lease row. */
  markTurn(turnId: string | null): Promise<void>;
  /** Deletes the lease row (if it is still this lease's). */
  release(): Promise<void>;
  /** The lease ended (released or lost): the lock forgets it. */
  ended(): void;
}

/**
 * The share of `leaseMs` a holder counts on after a renewal started. The database's lease runs
 * `leaseMs` from when the statement ran, which is after it was sent; stopping at 90 % leaves the
 * rest for clock drift and timer lateness, so the holder has stopped before anyone may take over.
 */
export const VALID_SHARE = 0.9;

/** A held lease; `lost` settles at most once and never rejects. */
export class HeldLease implements LockLease {
  readonly lost: Promise<void>;
  readonly sessionId: string;
  readonly token: string;
  readonly #hooks: LeaseHooks;
  #settle!: () => void;
  #renewTimer: ReturnType<typeof setTimeout> | undefined;
  #deadline: ReturnType<typeof setTimeout> | undefined;
  #ended = false;
  /** When the last successful renewal (or the take) started, plus 90 % of `leaseMs`. */
  #validUntil = 0;

  constructor(sessionId: string, token: string, hooks: LeaseHooks, takenAt: number) {
    this.sessionId = sessionId;
    this.token = token;
    this.#hooks = hooks;
    this.lost = new Promise<void>((resolve) => (this.#settle = resolve));
    this.#extend(takenAt);
    this.#schedule();
  }

  /** Until when (epoch ms) this holder may act on the session; past it, it has stopped. */
  get validUntil(): number {
    return this.#validUntil;
  }

  /** Whether the lease is still this holder's: not released, not lost, not past `validUntil`. */
  isLive(): boolean {
    return !this.#ended && Date.now() < this.#validUntil;
  }

  /** Records whether its holder runs a turn (a failure is left to the lease's own expiry). */
  markTurn(turnId: string | null): void {
    if (!this.#ended) void this.#hooks.markTurn(turnId).catch(() => {});
  }

  /** Gives the lease up (idempotent; a lost lease has nothing left to give). */
  release(): void {
    if (this.#end()) void this.#hooks.release().catch(() => {});
  }

  /** Another holder has the lease now (or it ran out): `lost` settles. */
  lose(): void {
    if (this.#end()) this.#settle();
  }

  #end(): boolean {
    if (this.#ended) return false;
    this.#ended = true;
    clearTimeout(this.#renewTimer);
    clearTimeout(this.#deadline);
    this.#hooks.ended();
    return true;
  }

  /** Counts on the lease until 90 % of `leaseMs` after `from`; `lost` settles then at the latest. */
  #extend(from: number): void {
    this.#validUntil = from + Math.floor(this.#hooks.leaseMs * VALID_SHARE);
    clearTimeout(this.#deadline);
    // Not tied to a renewal's answer: a renewal that hangs (a partition) must not delay it.
    this.#deadline = setTimeout(() => this.lose(), Math.max(0, this.#validUntil - Date.now()));
    (this.#deadline as { unref?: () => void }).unref?.();
  }

  #schedule(): void {
    // Unref'd: a process may exit while it holds leases; they run out after `leaseMs`.
    this.#renewTimer = setTimeout(() => void this.#renew(), Math.max(10, Math.floor(this.#hooks.leaseMs / 3)));
    (this.#renewTimer as { unref?: () => void }).unref?.();
  }

  async #renew(): Promise<void> {
    const startedAt = Date.now();
    let ours: boolean | undefined;
    try {
      // Bounded by the time left: an answer after `validUntil` would come too late anyway.
      const answer = await withTimeout(this.#hooks.renew(), Math.max(0, this.#validUntil - startedAt));
      ours = answer === TIMED_OUT ? undefined : answer;
    } catch {
      ours = undefined; // Unknown: the database did not answer.
    }
    if (this.#ended) return;
    if (ours === false) return this.lose();
    if (ours) this.#extend(startedAt);
    if (!this.isLive()) return this.lose();
    this.#schedule();
  }
}
