/**
 * The page bundle of the cross-tab tests: each page is one tab, and Node drives several of them
 * on one origin. A page holds session locks (Web Locks), IndexedDB storages and change feeds by
 * name, so that Node can act in one tab and look in another.
 * @module
 */
import {
  IndexedDbSessionStorage,
  SessionChangeFeed,
  WebLocksSessionLock,
  type LockLease,
  type LockMode,
  type SessionChange,
  type SessionEvent,
} from '../../src/index.js';
import { AgentError } from '../../src/errors.js';
import { exposeToHarness } from './page-runtime.js';

/** A lease and whether its `lost` settled. */
interface Held {
  lease: LockLease;
  lost: boolean;
}

const held = new Map<string, Held>();
/** A `'wait'` request in flight: when it was granted (`Date.now()`), or its failure. */
const waiting = new Map<string, { granted: Promise<number>; abort: AbortController }>();
const storages = new Map<string, IndexedDbSessionStorage>();
const feeds = new Map<string, { feed: SessionChangeFeed; received: SessionChange[] }>();

const lockOf = (namespace: string) => new WebLocksSessionLock({ namespace });

function keep(handle: string, lease: LockLease): void {
  const entry: Held = { lease, lost: false };
  void lease.lost.then(() => (entry.lost = true));
  held.set(handle, entry);
}

/** Resolves once `condition()` holds; rejects after `ms` (a guard against hangs, not a measure). */
async function until(condition: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

const text = (event: SessionEvent) =>
  event.payload.type === 'user_message' && event.payload.content[0]?.type === 'text'
    ? event.payload.content[0].text
    : event.payload.type;

function storage(dbName: string): IndexedDbSessionStorage {
  let found = storages.get(dbName);
  if (!found) storages.set(dbName, (found = new IndexedDbSessionStorage({ dbName })));
  return found;
}

exposeToHarness({
  /** Takes the lock in `mode`; `'held'` (kept under `handle`) or `'null'` when it is held elsewhere. */
  async acquire(handle: string, namespace: string, sessionId: string, mode: LockMode) {
    const lease = await lockOf(namespace).acquire(sessionId, mode);
    if (lease === null) return 'null';
    keep(handle, lease);
    return 'held';
  },

  /** Starts a `'wait'` request without awaiting it; `grantedAt(handle)` tells when it was granted. */
  async startWaiting(handle: string, namespace: string, sessionId: string) {
    const abort = new AbortController();
    const granted = lockOf(namespace)
      .acquire(sessionId, 'wait', abort.signal)
      .then((lease) => {
        const at = Date.now();
        keep(handle, lease!);
        return at;
      });
    granted.catch(() => undefined);
    waiting.set(handle, { granted, abort });
  },

  /** `Date.now()` when the waiting request `handle` was granted (waits up to `ms` for it). */
  async grantedAt(handle: string, ms: number) {
    const { granted } = waiting.get(handle)!;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const guard = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`the waiting lock was not granted within ${ms} ms`)), ms);
    });
    return Promise.race([granted, guard]).finally(() => clearTimeout(timer));
  },

  /** Aborts the waiting request with `reason`; returns what its promise rejected with. */
  async abortWaiting(handle: string, reason: string) {
    const { granted, abort } = waiting.get(handle)!;
    abort.abort(new Error(reason));
    try {
      await granted;
      return 'granted';
    } catch (error) {
      return (error as Error).message;
    }
  },

  /** Whether the lease `handle` was lost, once it settled or `ms` passed. */
  async lostWithin(handle: string, ms: number) {
    const entry = held.get(handle)!;
    await until(() => entry.lost, ms, `lease '${handle}' lost`).catch(() => undefined);
    return entry.lost;
  },

  async release(handle: string) {
    held.get(handle)?.lease.release();
  },

  /**
   * Releases the lease `handle` and, in the same tick, steals its lock under `thief`: the steal
   * may reach Web Locks before the release, which then rejects the released request. Returns
   * whether the released lease's `lost` settled within `ms`.
   */
  async releaseThenSteal(handle: string, thief: string, namespace: string, sessionId: string, ms: number) {
    const entry = held.get(handle)!;
    entry.lease.release();
    const stolen = lockOf(namespace).acquire(sessionId, 'steal');
    keep(thief, (await stolen)!);
    await until(() => entry.lost, ms, 'lost').catch(() => undefined);
    return entry.lost;
  },

  /** The holders Web Locks report for `name` (`navigator.locks.query()`). */
  async heldLocks() {
    const { held: locks = [] } = await navigator.locks.query();
    return locks.map((lock) => lock.name);
  },

  async claim(dbName: string, sessionId: string) {
    return storage(dbName).claimWriter(sessionId);
  },

  /** Saves a user message; `'stored'`, or the error code and its cause's code. */
  async save(dbName: string, sessionId: string, message: string, writerEpoch?: number) {
    const event: SessionEvent = {
      timestamp: new Date().toISOString(),
      payload: { type: 'user_message', content: [{ type: 'text', text: message }] },
    };
    try {
      await storage(dbName).saveEvent(sessionId, event, writerEpoch === undefined ? {} : { writerEpoch });
      return 'stored';
    } catch (error) {
      if (!AgentError.isInstance(error)) throw error;
      const cause = AgentError.isInstance(error.cause) ? error.cause.code : String(error.cause);
      return `${error.code} (cause ${cause})`;
    }
  },

  /** The session's user messages, as stored. */
  async load(dbName: string, sessionId: string) {
    return ((await storage(dbName).loadSession(sessionId)) ?? []).map(text);
  },

  async openFeed(namespace: string) {
    const feed = new SessionChangeFeed({ namespace });
    const received: SessionChange[] = [];
    feed.changes.subscribe((change) => received.push(change));
    feeds.set(namespace, { feed, received });
  },

  async post(namespace: string, change: SessionChange) {
    feeds.get(namespace)!.feed.post(change);
  },

  /** Posts raw messages on the feed's channel, as another release (or anything else) could. */
  async postRaw(namespace: string, messages: unknown[]) {
    const channel = new BroadcastChannel(`youyou-agent:${namespace}`);
    for (const message of messages) channel.postMessage(message);
    channel.close();
  },

  /** What the feed received once it has `count` changes (waits up to `ms`). */
  async received(namespace: string, count: number, ms: number) {
    const { received } = feeds.get(namespace)!;
    await until(() => received.length >= count, ms, `${count} changes received`);
    return received;
  },
});
