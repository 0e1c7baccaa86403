/**
 * `agent.sessionChanges` merges the `changes` feeds of the session storage and the session lock
 * (other processes' changes, e.g. over PostgreSQL) with the tabs' channel, and ends the port
 * feeds' subscriptions with its subscriber's: on unsubscribe and at shutdown.
 */
import { Observable } from 'rxjs';
import { describe, expect, it } from 'vitest';
import {
  InMemorySessionStorage,
  type LockLease,
  type SessionChange,
  type SessionLock,
} from '../../src/index.js';
import { createTestAgent } from '../support/agent.js';

/** A feed a test pushes into, counting its subscribers. */
function feed() {
  const subscribers = new Set<(change: SessionChange) => void>();
  const observable = new Observable<SessionChange>((subscriber) => {
    const next = (change: SessionChange) => subscriber.next(change);
    subscribers.add(next);
    return () => subscribers.delete(next);
  });
  return {
    observable,
    push: (change: SessionChange) => subscribers.forEach((next) => next(change)),
    subscribers,
  };
}

class StorageWithChanges extends InMemorySessionStorage {
  readonly feed = feed();
  readonly changes = this.feed.observable;
}

function lockWithChanges() {
  const lockFeed = feed();
  const lock: SessionLock = {
    acquire: async (): Promise<LockLease> => ({ lost: new Promise(() => {}), release() {} }),
    changes: lockFeed.observable,
  };
  return { lock, feed: lockFeed };
}

describe("agent.sessionChanges with the ports' own feeds", () => {
  it("delivers the storage's and the lock's changes, and unsubscribes them with its subscriber", async () => {
    const storage = new StorageWithChanges({ namespace: `ports-${Math.random()}` });
    const { lock, feed: lockFeed } = lockWithChanges();
    const { agent } = await createTestAgent({ sessionStorage: storage, lock });
    const seen: SessionChange[] = [];
    const subscription = agent.sessionChanges.subscribe((change) => seen.push(change));
    expect([storage.feed.subscribers.size, lockFeed.subscribers.size]).toEqual([1, 1]);
    storage.feed.push({ sessionId: 'far', kind: 'appended' });
    lockFeed.push({ sessionId: 'far', kind: 'locked' });
    storage.feed.push({ sessionId: 'far', kind: 'deleted' });
    expect(seen).toEqual([
      { sessionId: 'far', kind: 'appended' },
      { sessionId: 'far', kind: 'locked' },
      { sessionId: 'far', kind: 'deleted' },
    ]);
    subscription.unsubscribe();
    expect([storage.feed.subscribers.size, lockFeed.subscribers.size]).toEqual([0, 0]);
    await agent.shutdown();
  });

  it('completes at shutdown and leaves no subscription on the ports behind', async () => {
    const storage = new StorageWithChanges({ namespace: `ports-${Math.random()}` });
    const { lock, feed: lockFeed } = lockWithChanges();
    const { agent } = await createTestAgent({ sessionStorage: storage, lock });
    let completed = false;
    agent.sessionChanges.subscribe({ complete: () => (completed = true) });
    await agent.shutdown();
    expect(completed).toBe(true);
    expect([storage.feed.subscribers.size, lockFeed.subscribers.size]).toEqual([0, 0]);
  });
});
