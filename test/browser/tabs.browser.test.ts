/**
 * One writer per session across tabs, in real Chromium: two (or more) pages of one browser
 * context on one loopback origin, each loading `tabs.page.ts`, share Web Locks, IndexedDB and
 * BroadcastChannel as two tabs of a user would. Without Chromium every test fails (see
 * `harness.ts`), none is skipped.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { HarnessPage } from './harness.js';
import { useChromium } from './use-chromium.js';

const PAGE_ENTRY = fileURLToPath(new URL('./tabs.page.ts', import.meta.url));
/** How long a page waits for something that should come at once, before it fails (a hang guard). */
const GUARD_MS = 5_000;
const SLOW = { timeout: 60_000 };

const chromium = useChromium(PAGE_ENTRY);
let cases = 0;
/** A namespace (lock names, channel, database) no other test uses. */
const fresh = (what: string) => `${what}-${Date.now()}-${(cases += 1)}`;

/** A new tab on the shared origin; fails the test with the start-up error if there is no browser. */
const tab = (): Promise<HarnessPage> => chromium.open();

describe('WebLocksSessionLock across two tabs (Chromium)', SLOW, () => {
  it("while tab A holds a session's lock, tab B's ifAvailable gets null; once A releases, B gets it", async () => {
    const [a, b] = [await tab(), await tab()];
    const ns = fresh('if-available');
    expect(await a.call('acquire', 'a', ns, 's1', 'ifAvailable')).toBe('held');
    expect(await b.call('heldLocks')).toContain(`youyou-agent:${ns}:s1`);
    expect(await b.call('acquire', 'b', ns, 's1', 'ifAvailable')).toBe('null');
    // Another session of the same namespace, and the same session of another namespace, are free.
    expect(await b.call('acquire', 'b2', ns, 's2', 'ifAvailable')).toBe('held');
    expect(await b.call('acquire', 'b3', `${ns}-other`, 's1', 'ifAvailable')).toBe('held');
    await a.call('release', 'a');
    await a.call('release', 'a'); // idempotent
    expect(await b.call('acquire', 'b', ns, 's1', 'ifAvailable')).toBe('held');
    await Promise.all([a.close(), b.close()]);
  });

  it("tab B's steal takes the lock at once: A's lease.lost settles and B holds the lock", async () => {
    const [a, b] = [await tab(), await tab()];
    const ns = fresh('steal');
    expect(await a.call('acquire', 'a', ns, 's1', 'ifAvailable')).toBe('held');
    expect(await a.call('lostWithin', 'a', 0)).toBe(false);
    expect(await b.call('acquire', 'b', ns, 's1', 'steal')).toBe('held');
    expect(await a.call('lostWithin', 'a', GUARD_MS)).toBe(true);
    expect(await a.call('acquire', 'a2', ns, 's1', 'ifAvailable')).toBe('null');
    // A releasing its lost lease afterwards does not give B's lock away.
    await a.call('release', 'a');
    expect(await a.call('acquire', 'a3', ns, 's1', 'ifAvailable')).toBe('null');
    expect(await b.call('lostWithin', 'b', 0)).toBe(false);
    await Promise.all([a.close(), b.close()]);
  });

  it("a released lease's lost does not settle, even when another holder steals the lock right after", async () => {
    const a = await tab();
    const ns = fresh('released');
    expect(await a.call('acquire', 'a', ns, 's1', 'ifAvailable')).toBe('held');
    expect(await a.call('releaseThenSteal', 'a', 'thief', ns, 's1', 500)).toBe(false);
    expect(await a.call('lostWithin', 'thief', 0)).toBe(false);
    await a.close();
  });

  it("tab B's wait is granted when tab A closes", async () => {
    const [a, b] = [await tab(), await tab()];
    const ns = fresh('wait');
    expect(await a.call('acquire', 'a', ns, 's1', 'ifAvailable')).toBe('held');
    await b.call('startWaiting', 'b', ns, 's1');
    await a.page.close();
    // Rejects unless the lock is granted within the guard.
    expect(await b.call('grantedAt', 'b', GUARD_MS)).toEqual(expect.any(Number));
    await b.call('release', 'b');
    await b.close();
  });

  it("aborting a wait rejects it with the signal's reason, and the holder keeps the lock", async () => {
    const [a, b] = [await tab(), await tab()];
    const ns = fresh('abort');
    expect(await a.call('acquire', 'a', ns, 's1', 'ifAvailable')).toBe('held');
    await b.call('startWaiting', 'b', ns, 's1');
    expect(await b.call('abortWaiting', 'b', 'the user went elsewhere')).toBe('the user went elsewhere');
    expect(await a.call('lostWithin', 'a', 0)).toBe(false);
    await a.call('release', 'a');
    expect(await b.call('acquire', 'b', ns, 's1', 'ifAvailable')).toBe('held');
    await Promise.all([a.close(), b.close()]);
  });
});

describe('IndexedDB writer fencing across two tabs (Chromium)', SLOW, () => {
  it("A claims, B claims: A's writes are refused, B's are stored, and the history has only B's after the claim", async () => {
    const [a, b] = [await tab(), await tab()];
    const db = fresh('fencing');
    const epochA = await a.call<number>('claim', db, 's1');
    expect(await a.call('save', db, 's1', 'A before', epochA)).toBe('stored');
    const epochB = await b.call<number>('claim', db, 's1');
    expect(epochB).toBeGreaterThan(epochA);
    expect(await a.call('save', db, 's1', 'A late', epochA)).toBe(
      'STORAGE_ERROR (cause SESSION_WRITER_REPLACED)',
    );
    expect(await b.call('save', db, 's1', 'B one', epochB)).toBe('stored');
    expect(await a.call('save', db, 's1', 'A later', epochA)).toBe(
      'STORAGE_ERROR (cause SESSION_WRITER_REPLACED)',
    );
    expect(await b.call('save', db, 's1', 'B two', epochB)).toBe('stored');
    const history = ['A before', 'B one', 'B two'];
    expect(await a.call('load', db, 's1')).toEqual(history);
    expect(await b.call('load', db, 's1')).toEqual(history);
    await Promise.all([a.close(), b.close()]);
  });
});

describe('SessionChangeFeed across two tabs (Chromium)', SLOW, () => {
  it("tab A's feed delivers B's posts, in order, and ignores invalid messages", async () => {
    const [a, b] = [await tab(), await tab()];
    const ns = fresh('feed');
    await a.call('openFeed', ns);
    await b.call('openFeed', ns);
    await b.call('postRaw', ns, [
      { v: 2, sessionId: 's1', kind: 'appended' },
      { v: 1, sessionId: '', kind: 'appended' },
      { v: 1, sessionId: 's1', kind: 'renamed' },
      'appended',
      null,
    ]);
    await b.call('post', ns, { sessionId: 's1', kind: 'locked' });
    await b.call('post', ns, { sessionId: 's1', kind: 'appended' });
    await b.call('postRaw', ns, [{ v: 1, sessionId: 's2', kind: 'deleted', lastSeq: 4 }]);
    expect(await a.call('received', ns, 3, GUARD_MS)).toEqual([
      { sessionId: 's1', kind: 'locked' },
      { sessionId: 's1', kind: 'appended' },
      { sessionId: 's2', kind: 'deleted' },
    ]);
    // B's feed hears the raw message of another channel, but not its own posts.
    expect(await b.call('received', ns, 1, GUARD_MS)).toEqual([{ sessionId: 's2', kind: 'deleted' }]);
    await Promise.all([a.close(), b.close()]);
  });
});
