import { describe, it } from 'vitest';
import { InMemoryMemoryStorage } from '../../src/storage/in-memory-memory-storage.js';
import { InMemorySessionStorage } from '../../src/storage/in-memory-session-storage.js';
import { memoryStorageContract } from '../../src/testing/contracts/memory-storage.contract.js';
import { sessionStorageContract } from '../../src/testing/contracts/session-storage.contract.js';

describe('InMemorySessionStorage meets the SessionStorage contract', () => {
  for (const c of sessionStorageContract) it(c.name, () => c.run(new InMemorySessionStorage()));
});

describe('InMemoryMemoryStorage meets the MemoryStorage contract', () => {
  for (const c of memoryStorageContract) it(c.name, () => c.run(new InMemoryMemoryStorage()));
});
