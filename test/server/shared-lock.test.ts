/**
 * The in-process lock the multi-instance tests share between two handlers honours the
 * `SessionLock` contract: `ifAvailable` is `null` while held, `wait` resolves on release (or
 * rejects when its signal aborts), `steal` takes it at once and settles the holder's `lost`, and a
 * crashed holder's leases are free without a `lost`.
 */
import { describe, expect, it } from 'vitest';
import { hasSettled } from '../support/waits.js';
import { SharedSessionLock } from '../support/shared-lock.js';

describe('SharedSessionLock', () => {
  it('ifAvailable, wait, steal and crash', async () => {
    const lock = new SharedSessionLock();
    const a = lock.forHolder('A');
    const b = lock.forHolder('B');
    const held = (await a.acquire('s', 'ifAvailable'))!;
    expect(await b.acquire('s', 'ifAvailable')).toBeNull();

    const waiting = b.acquire('s', 'wait');
    expect(await hasSettled(waiting)).toBe(false);
    held.release();
    const second = (await waiting)!;
    expect(lock.holderOf('s')).toBe('B');

    const aborted = new AbortController();
    const blocked = a.acquire('s', 'wait', aborted.signal);
    aborted.abort(new Error('gave up'));
    await expect(blocked).rejects.toThrow('gave up');

    const stolen = (await a.acquire('s', 'steal'))!;
    expect(await hasSettled(second.lost)).toBe(true);
    expect(lock.holderOf('s')).toBe('A');

    lock.crash('A');
    expect(await hasSettled(stolen.lost)).toBe(false);
    expect(await b.acquire('s', 'ifAvailable')).not.toBeNull();
  });
});
