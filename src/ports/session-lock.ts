/**
 * Who may write a session: one holder at a time, across tabs. The default in browsers is
 * `WebLocksSessionLock` (Web Locks); with none registered, only storage fencing (when the storage
 * has `claimWriter`) stops a second writer.
 * @module
 */
import type { Observable } from 'rxjs';
import type { SessionChange } from '../sync/session-change-feed.js';

/** How to take a lock that another tab or `Agent` holds. */
export type LockMode = 'ifAvailable' | 'wait' | 'steal';

/** A held session lock. */
export interface LockLease {
  /** Settles when the lock is taken away (another holder stole it); never rejects. */
  readonly lost: Promise<void>;
  /** Gives the lock up (idempotent). */
  release(): void;
}

/**
 * A lock per session id.
 *
 * `acquire` resolves with a lease, or `null` when the mode is `'ifAvailable'` and the lock is held
 * elsewhere. `'wait'` waits until the holder releases it (or `signal` aborts: the promise rejects
 * with the signal's reason); `'steal'` takes it at once and the previous holder's `lost` settles.
 * @example
 * const lease = await lock.acquire('s-1', 'ifAvailable');
 * if (lease === null) console.log('open in another tab');
 * else lease.release();
 */
export interface SessionLock {
  acquire(sessionId: string, mode: LockMode, signal?: AbortSignal): Promise<LockLease | null>;
  /**
   * Optional: what other instances of the lock do (`locked`, `released`), e.g. other processes on
   * one database; this instance's own leases are left out. Never errors. The agent merges it into
   * `agent.sessionChanges`.
   */
  readonly changes?: Observable<SessionChange>;
}

/**
 * @internal What a lease kept in a database also tells the runtime (not part of the public
 * port): whether it is still its holder's. Past its `validUntil` the holder stops, so no tool
 * starts once another instance may have taken the session.
 */
export interface LiveLease extends LockLease {
  /** `false` once the lease was released, lost or ran out. */
  isLive(): boolean;
  /**
   * Records in the lease whether its holder runs a turn (`turnId`, `null` when it ended), so a
   * request elsewhere is refused by the lease rather than by reading the history. Never rejects.
   */
  markTurn?(turnId: string | null): void;
}

/** @internal What a lock kept in a database also offers the server (not part of the public port). */
export interface TurnAwareLock extends SessionLock {
  /**
   * Takes the session's lease unless a live lease of another holder runs a turn (then `null`),
   * in one atomic step: a steal of an idle holder, never of one mid-turn.
   */
  acquireUnlessTurnRuns(sessionId: string): Promise<LockLease | null>;
  /** Whether someone holds the session's lease now and which turn it runs, without taking it. */
  peek(sessionId: string): Promise<{ live: boolean; turnId: string | null }>;
}

/**
 * @internal A lock whose `release()` reaches its store later (a statement in flight): the server
 * waits for those before `handler.close()` resolves, so a process that exits then has given its
 * leases back.
 */
export interface SettlingLock extends SessionLock {
  /** Settles once every release asked for so far has reached the store (or failed); never rejects. */
  releasesSettled(): Promise<void>;
}

/** @internal Whether `lock` tells when its releases reached its store. */
export function isSettlingLock(lock: SessionLock): lock is SettlingLock {
  return typeof (lock as Partial<SettlingLock>).releasesSettled === 'function';
}

/** @internal Whether `lock` knows which turn its holders run. */
export function isTurnAwareLock(lock: SessionLock): lock is TurnAwareLock {
  return typeof (lock as Partial<TurnAwareLock>).acquireUnlessTurnRuns === 'function';
}

