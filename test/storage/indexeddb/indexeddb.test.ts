/**
 * The IndexedDB-specific behaviour of the IndexedDB storages on `fake-indexeddb` (the same
 * cases run in real Chromium: `test/browser/`), plus what only Node can show.
 */
import 'fake-indexeddb/auto';
import { IDBFactory } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';
import { IndexedDbMemoryStorage, IndexedDbSessionStorage } from '../../../src/storage/indexeddb/index.js';
import { indexedDbCases, userEvent } from '../../browser/indexeddb.cases.js';
import { expectAgentError } from '../../support/errors.js';

// Room for the 10,000-event case on a busy machine.
describe('IndexedDB storages (fake-indexeddb)', { timeout: 60_000 }, () => {
  for (const idbCase of indexedDbCases) {
    it(idbCase.name, () => idbCase.run({ indexedDB: new IDBFactory(), dbName: 'youyou-test' }));
  }
});

describe('IndexedDB storages in Node', () => {
  it('without an IndexedDB factory, every call rejects with STORAGE_ERROR "IndexedDB is not available"', async () => {
    const global = globalThis as { indexedDB?: IDBFactory };
    const installed = global.indexedDB;
    delete global.indexedDB;
    try {
      // Constructing touches nothing: only the first use finds IndexedDB missing.
      const storage = new IndexedDbSessionStorage();
      const memories = new IndexedDbMemoryStorage();
      for (const call of [
        storage.saveEvent('s1', userEvent(1, 'hi')),
        storage.loadSession('s1'),
        storage.listSessions(null, 10),
        memories.search('ns', '', 5),
      ]) {
        await expect(call).rejects.toMatchObject({
          code: 'STORAGE_ERROR',
          message: 'IndexedDB is not available',
        });
      }
    } finally {
      global.indexedDB = installed;
    }
  });

  it('uses globalThis.indexedDB when no factory is given', async () => {
    const dbName = `global-factory-${Math.random()}`;
    const storage = new IndexedDbSessionStorage({ dbName });
    await storage.saveEvent('s1', userEvent(1, 'in the global factory'));
    const names = (await indexedDB.databases()).map((db) => db.name);
    expect(names).toContain(dbName);
    await storage.close();
  });

  const invalidOptions: unknown[] = [
    { dbName: '' },
    { indexedDB: {} },
    { onCorruptRecord: 'log' },
    { blockedTimeoutMs: -1 },
    { surprise: true },
    'youyou',
  ];
  it.each(invalidOptions)(
    'rejects the invalid options %j with INVALID_INPUT naming the options',
    async (options) => {
      const error = await expectAgentError(
        () => new IndexedDbSessionStorage(options as never),
        'INVALID_INPUT',
      );
      expect(error.message).toContain('options');
    },
  );

  it('saving a value IndexedDB cannot store rejects that call with INVALID_INPUT, not its batch', async () => {
    const storage = new IndexedDbSessionStorage({ indexedDB: new IDBFactory() });
    const good = storage.saveEvent('s1', userEvent(1, 'fine'));
    const bad = storage.saveEvent('s1', {
      timestamp: new Date().toISOString(),
      payload: { type: 'tool_call', callId: 'c1', toolName: 't', arguments: () => 1 },
    });
    await expect(bad).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await good;
    expect(await storage.loadSession('s1')).toEqual([userEvent(1, 'fine')]);
  });
});
