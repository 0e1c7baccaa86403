/**
 * The PostgreSQL storages on a real PostgreSQL server (`pg` pools) against the shipped contract
 * suites, unchanged. Each case gets a schema of its own in this file's database.
 */
import { describe, it } from 'vitest';
import { PostgresMemoryStorage, PostgresSessionStorage } from '../../src/postgres.js';
import { memoryStorageContract, sessionStorageContract } from '../../src/testing/index.js';
import { useDatabase } from './support/server.js';

const database = useDatabase();
let schemas = 0;
const freshSchema = () => `contract_${++schemas}`;

describe('PostgresSessionStorage on PostgreSQL meets the SessionStorage contract', () => {
  for (const c of sessionStorageContract) {
    it(c.name, () => c.run(new PostgresSessionStorage({ sql: shared(), schema: freshSchema() })));
  }
});

describe('PostgresMemoryStorage on PostgreSQL meets the MemoryStorage contract', () => {
  for (const c of memoryStorageContract) {
    it(c.name, () => c.run(new PostgresMemoryStorage({ sql: shared(), schema: freshSchema() })));
  }
});

let client: ReturnType<typeof database.client> | undefined;
function shared() {
  client ??= database.client();
  return client.sql;
}
