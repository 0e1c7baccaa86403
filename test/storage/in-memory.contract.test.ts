/**
 * The in-memory storages against the contract suites — imported the way a user imports them
 * (`youyou-agent` and `youyou-agent/testing`, as the README shows), so the public exports are
 * exercised too.
 */
import { describe, it } from 'vitest';
import { InMemoryMemoryStorage, InMemorySessionStorage } from '../../src/index.js';
import { memoryStorageContract, sessionStorageContract } from '../../src/testing/index.js';

describe('InMemorySessionStorage meets the SessionStorage contract', () => {
  for (const c of sessionStorageContract) it(c.name, () => c.run(new InMemorySessionStorage()));
});

describe('InMemoryMemoryStorage meets the MemoryStorage contract', () => {
  for (const c of memoryStorageContract) it(c.name, () => c.run(new InMemoryMemoryStorage()));
});
