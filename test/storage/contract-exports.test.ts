/** The contract suites are public: a user runs them from `youyou-agent/testing` on their own storage. */
import { describe, it } from 'vitest';
import { InMemoryMemoryStorage, InMemorySessionStorage } from '../../src/index.js';
import { memoryStorageContract, sessionStorageContract } from '../../src/testing/index.js';

class MyStorage extends InMemorySessionStorage {}
class MyMemories extends InMemoryMemoryStorage {}

describe('MyStorage meets the SessionStorage contract (README example)', () => {
  for (const c of sessionStorageContract) it(c.name, () => c.run(new MyStorage()));
});
describe('MyMemories meets the MemoryStorage contract (README example)', () => {
  for (const c of memoryStorageContract) it(c.name, () => c.run(new MyMemories()));
});
