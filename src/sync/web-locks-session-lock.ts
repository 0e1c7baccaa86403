/**
 * {@link WebLocksSessionLock}: the session lock of browsers, over the Web Locks API
 * (`navigator.locks`), which every tab and worker of an origin shares. The browser releases a
 * lock by itself when its tab closes or crashes, so a lock never outlives its holder.
 * @module
 */
import * as z from 'zod/mini';
import * as Errors from '../error-constructors.js';
import type { LockLease, LockMode, SessionLock } from '../ports/session-lock.js';
import { parseInput } from '../validate.js';

/** Options of {@link WebLocksSessionLock}. */
export interface WebLocksSessionLockOptions {
  /**
   * Names the set of sessions the locks guard; use the session storage's `namespace` (for
   * IndexedDB, its database name) so that every tab on the same data takes the same locks.
   * Default `'default'`.
   */
  namespace?: string;
  /** The lock manager. Default `globalThis.navigator.locks`. */
  locks?: LockManager;
}

const NonEmptySchema = z.string().check(z.minLength(1));
const ModeSchema = z.enum(['ifAvailable', 'wait', 'steal']);

/**
 * A {@link SessionLock} over Web Locks, one lock per session named
 * `youyou-agent:<namespace>:<sessionId>`.
 *
 * - `'ifAvailable'` resolves `null` at once when another holder has the lock.
 * - `'wait'` queues until the holder releases it (or its tab closes); when `signal` aborts
 *   first, the promise rejects with the signal's reason (what `AbortSignal.abort(reason)` was
 *   given; by default a `DOMException` `AbortError`), as every other abortable browser API does.
 * - `'steal'` takes the lock at once; the previous holder's `lease.lost` settles.
 *
 * A lease holds its lock until `release()`. Bad arguments reject with `INVALID_INPUT`.
 * @example
 * const lock = new WebLocksSessionLock({ namespace: 'my-app' });
 * const lease = await lock.acquire('s-1', 'ifAvailable');
 * if (lease === null) console.log('open in another tab');
 * else void lease.lost.then(() => console.log('another tab took the session over'));
 */
export class WebLocksSessionLock implements SessionLock {
  /** The namespace in the lock names. */
  readonly namespace: string;
  readonly #locks: LockManager;

  /** Throws `INVALID_INPUT` when no lock manager is given and `navigator.locks` is missing. */
  constructor(options: WebLocksSessionLockOptions = {}) {
    this.namespace = parseInput(z.optional(NonEmptySchema), options.namespace, 'namespace') ?? 'default';
    const locks = options.locks ?? globalThis.navigator?.locks;
    if (!locks) {
      throw Errors.invalidInput(
        'Web Locks (navigator.locks) are not available here: pass a LockManager, or register no session lock',
      );
    }
    this.#locks = locks;
  }

  /** The Web Locks name of the session's lock. */
  lockName(sessionId: string): string {
    return `youyou-agent:${this.namespace}:${sessionId}`;
  }

  /** Takes the session's lock in `mode` (see the class); `null` only for `'ifAvailable'`. */
  async acquire(sessionId: string, mode: LockMode, signal?: AbortSignal): Promise<LockLease | null> {
    const id = parseInput(NonEmptySchema, sessionId, 'sessionId');
    parseInput(ModeSchema, mode, 'mode');
    signal?.throwIfAborted();
    return holdLock(this.#locks, this.lockName(id), lockOptions(mode, signal));
  }
}

/**
 * The Web Locks options of `mode`. Only a waiting request takes the signal: Web Locks refuse a
 * signal together with `ifAvailable` or `steal`, which never wait.
 */
function lockOptions(mode: LockMode, signal: AbortSignal | undefined): LockOptions {
  if (mode === 'ifAvailable') return { ifAvailable: true };
  if (mode === 'steal') return { steal: true };
  return signal ? { signal } : {};
}

/**
 * Requests the lock and, once granted, keeps it by leaving the request's callback pending until
 * the lease is released. Resolves `null` when an `ifAvailable` request finds it held.
 */
function holdLock(locks: LockManager, name: string, options: LockOptions): Promise<LockLease | null> {
  return new Promise((resolve, reject) => {
    let granted = false;
    let giveBack!: () => void;
    let markLost!: () => void;
    const held = new Promise<void>((done) => (giveBack = done));
    const lost = new Promise<void>((done) => (markLost = done));
    const lease: LockLease = {
      lost,
      // Ending the callback's promise ends the request: it resolves, so `lost` stays pending.
      release: () => giveBack(),
    };
    locks
      .request(name, options, (lock) => {
        if (lock === null) return resolve(null);
        granted = true;
        resolve(lease);
        return held;
      })
      .then(
        () => undefined,
        (error: unknown) => {
          // Before the grant this is an aborted wait (or a refused request); after it, the
          // request rejects only when the lock was taken away: another holder stole it.
          if (granted) markLost();
          else reject(error);
        },
      );
  });
}

/**
 * The session lock to use by default: a {@link WebLocksSessionLock} on `namespace` where Web
 * Locks exist (browsers, in secure contexts such as https or localhost), else `null` (no lock;
 * a storage with `claimWriter` still fences off a second writer).
 * @example
 * const lock = defaultSessionLock('my-app'); // null in Node
 */
export function defaultSessionLock(namespace = 'default'): WebLocksSessionLock | null {
  const locks = globalThis.navigator?.locks;
  return locks ? new WebLocksSessionLock({ namespace, locks }) : null;
}
