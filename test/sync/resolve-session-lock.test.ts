/** Which session lock `build()` gives an agent: the registered one, none, or the default. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { InMemorySessionStorage, WebLocksSessionLock, type SessionLock } from '../../src/index.js';
import { resolveSessionLock } from '../../src/sync/resolve-session-lock.js';
import { expectAgentError } from '../support/errors.js';
import { FakeLockManager } from './fake-lock-manager.js';

afterEach(() => {
  vi.unstubAllGlobals();
});

const custom: SessionLock = { acquire: async () => null };

describe('resolveSessionLock', () => {
  it('keeps a registered lock, and null turns the lock off', () => {
    const storage = new InMemorySessionStorage();
    expect(resolveSessionLock(custom, storage)).toBe(custom);
    expect(resolveSessionLock(null, storage)).toBeNull();
  });

  it('rejects a registered value that is not a lock with INVALID_INPUT', async () => {
    await expectAgentError(() => resolveSessionLock({} as SessionLock, null), 'INVALID_INPUT', 'sessionLock');
  });

  it("defaults to Web Locks on the storage's namespace where navigator.locks exists", async () => {
    const locks = new FakeLockManager();
    vi.stubGlobal('navigator', { locks });
    const lock = resolveSessionLock(undefined, new InMemorySessionStorage({ namespace: 'shared' }));
    expect(lock).toBeInstanceOf(WebLocksSessionLock);
    await lock!.acquire('s1', 'ifAvailable');
    expect(locks.held()).toEqual(['youyou-agent:shared:s1']);
    // A storage without a namespace (one written before namespaces existed).
    const plain = {} as never;
    expect((resolveSessionLock(undefined, plain) as WebLocksSessionLock).namespace).toBe('default');
    // No storage: nobody else can open its sessions, so nothing to lock.
    expect(resolveSessionLock(undefined, null)).toBeNull();
  });

  it('defaults to no lock where navigator.locks is missing (Node)', () => {
    vi.stubGlobal('navigator', undefined);
    expect(resolveSessionLock(undefined, new InMemorySessionStorage())).toBeNull();
  });
});
