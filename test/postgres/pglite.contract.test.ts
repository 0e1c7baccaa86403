/**
 * The PostgreSQL storages on PGlite (PostgreSQL in WebAssembly, in this process) against the
 * shipped contract suites, imported as a user imports them. One PGlite per file; each case gets
 * a schema of its own, so it starts from an empty database.
 */
import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, it } from 'vitest';
import {
  PostgresMemoryStorage,
  PostgresSessionStorage,
  pgliteClient,
  type SqlClient,
} from '../../src/postgres.js';
import { memoryStorageContract, sessionStorageContract } from '../../src/testing/index.js';

let db: PGlite;
let sql: SqlClient;
let schemas = 0;
const freshSchema = () => `contract_${++schemas}`;

beforeAll(async () => {
  db = await PGlite.create();
  sql = pgliteClient(db);
}, 60_000);
afterAll(() => db.close());

describe('PostgresSessionStorage on PGlite meets the SessionStorage contract', () => {
  for (const c of sessionStorageContract) {
    it(c.name, () => c.run(new PostgresSessionStorage({ sql, schema: freshSchema() })));
  }
});

describe('PostgresMemoryStorage on PGlite meets the MemoryStorage contract', () => {
  for (const c of memoryStorageContract) {
    it(c.name, () => c.run(new PostgresMemoryStorage({ sql, schema: freshSchema() })));
  }
});
