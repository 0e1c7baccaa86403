/**
 * `WebLocksSessionLock` over a Node `LockManager` of its own (Web Locks exist only in browsers;
 * the same rules run in real Chromium in `test/browser/tabs.browser.test.ts`), and
 * `defaultSessionLock` with and without `navigator.locks`.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { defaultSessionLock, WebLocksSessionLock } from '../../src/index.js';
import { expectAgentError } from '../support/errors.js';
import { hasSettled } from '../support/waits.js';
import { FakeLockManager } from './fake-lock-manager.js';

function lockOn(locks = new FakeLockManager(), namespace = 'app') {
  return { locks, lock: new WebLocksSessionLock({ namespace, locks: locks as unknown as LockManager }) };
}

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('WebLocksSessionLock', () => {
  it('names the lock youyou-agent:<namespace>:<sessionId>, with the namespace "default" when none is given', async () => {
    const { locks, lock } = lockOn();
    const lease = await lock.acquire('s-1', 'ifAvailable');
    expect(locks.held()).toEqual(['youyou-agent:app:s-1']);
    expect(lock.lockName('s-1')).toBe('youyou-agent:app:s-1');
    lease!.release();
    const unnamed = new WebLocksSessionLock({ locks: locks as unknown as LockManager });
    expect(unnamed.namespace).toBe('default');
    expect(unnamed.lockName('s-1')).toBe('youyou-agent:default:s-1');
  });

  it('ifAvailable: a lease when the lock is free, null while another holder has it', async () => {
    const { locks, lock } = lockOn();
    const first = await lock.acquire('s-1', 'ifAvailable');
    expect(first).not.toBeNull();
    expect(await lock.acquire('s-1', 'ifAvailable')).toBeNull();
    expect(await lock.acquire('s-2', 'ifAvailable')).not.toBeNull();
    first!.release();
    first!.release(); // idempotent
    await vi.waitFor(() => expect(locks.held()).not.toContain('youyou-agent:app:s-1'));
    expect(await lock.acquire('s-1', 'ifAvailable')).not.toBeNull();
  });

  it("steal: granted at once; the previous holder's lost settles (and never rejects)", async () => {
    const { lock } = lockOn();
    const first = (await lock.acquire('s-1', 'ifAvailable'))!;
    expect(await hasSettled(first.lost)).toBe(false);
    const thief = await lock.acquire('s-1', 'steal');
    expect(thief).not.toBeNull();
    await expect(first.lost).resolves.toBeUndefined();
    expect(await hasSettled(thief!.lost)).toBe(false);
  });

  it('wait: granted once the holder releases; a released lease is not lost', async () => {
    const { lock } = lockOn();
    const first = (await lock.acquire('s-1', 'ifAvailable'))!;
    const waiting = lock.acquire('s-1', 'wait');
    expect(await hasSettled(waiting)).toBe(false);
    first.release();
    const second = await waiting;
    expect(second).not.toBeNull();
    expect(await hasSettled(first.lost)).toBe(false);
  });

  it("wait: an abort rejects with the signal's reason and leaves the holder alone", async () => {
    const { locks, lock } = lockOn();
    const holder = (await lock.acquire('s-1', 'ifAvailable'))!;
    const controller = new AbortController();
    const waiting = lock.acquire('s-1', 'wait', controller.signal);
    const reason = new Error('the user closed the dialog');
    controller.abort(reason);
    await expect(waiting).rejects.toBe(reason);
    expect(await hasSettled(holder.lost)).toBe(false);
    // Only a waiting request carries the signal: Web Locks refuse one with ifAvailable or steal.
    await lock.acquire('s-2', 'ifAvailable', controller.signal).catch(() => undefined);
    expect(locks.requests.map((r) => Object.keys(r.options))).toEqual([['ifAvailable'], ['signal']]);
  });

  it('an already aborted signal rejects with its reason before any request', async () => {
    const { locks, lock } = lockOn();
    const reason = new Error('too late');
    for (const mode of ['ifAvailable', 'wait', 'steal'] as const) {
      await expect(lock.acquire('s-1', mode, AbortSignal.abort(reason))).rejects.toBe(reason);
    }
    expect(locks.requests).toEqual([]);
  });

  it('rejects a bad session id or mode with INVALID_INPUT, and needs a lock manager', async () => {
    const { lock } = lockOn();
    await expectAgentError(lock.acquire('', 'wait'), 'INVALID_INPUT', 'sessionId');
    await expectAgentError(lock.acquire('s-1', 'grab' as never), 'INVALID_INPUT', 'mode');
    vi.stubGlobal('navigator', {});
    await expectAgentError(() => new WebLocksSessionLock(), 'INVALID_INPUT', 'navigator.locks');
  });
});

describe('defaultSessionLock', () => {
  it('is null where navigator.locks is missing (Node)', () => {
    vi.stubGlobal('navigator', undefined);
    expect(defaultSessionLock('app')).toBeNull();
    vi.stubGlobal('navigator', {});
    expect(defaultSessionLock('app')).toBeNull();
  });

  it('is a WebLocksSessionLock on the namespace over navigator.locks where it exists', async () => {
    const locks = new FakeLockManager();
    vi.stubGlobal('navigator', { locks });
    const lock = defaultSessionLock('my-db');
    expect(lock).toBeInstanceOf(WebLocksSessionLock);
    await lock!.acquire('s-1', 'ifAvailable');
    expect(locks.held()).toEqual(['youyou-agent:my-db:s-1']);
  });
});
