/**
 * The shared storage contracts, run against the IndexedDB storages on `fake-indexeddb`
 * (a fresh factory per case, so cases never see each other's data).
 */
import 'fake-indexeddb/auto';
import { IDBFactory } from 'fake-indexeddb';
import { describe, it } from 'vitest';
import { IndexedDbMemoryStorage, IndexedDbSessionStorage } from '../../../src/storage/indexeddb/index.js';
import { memoryStorageContract } from '../../../src/testing/contracts/memory-storage.contract.js';
import { sessionStorageContract } from '../../../src/testing/contracts/session-storage.contract.js';

describe('IndexedDbSessionStorage meets the SessionStorage contract (fake-indexeddb)', () => {
  for (const contractCase of sessionStorageContract) {
    it(contractCase.name, () =>
      contractCase.run(new IndexedDbSessionStorage({ indexedDB: new IDBFactory() })),
    );
  }
});

describe('IndexedDbMemoryStorage meets the MemoryStorage contract (fake-indexeddb)', () => {
  for (const contractCase of memoryStorageContract) {
    it(contractCase.name, () =>
      contractCase.run(new IndexedDbMemoryStorage({ indexedDB: new IDBFactory() })),
    );
  }
});
