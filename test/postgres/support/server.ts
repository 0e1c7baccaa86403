/**
 * The real PostgreSQL server of this test run (started once by `test/support/postgres-server.ts`),
 * with a database per test file: `useDatabase()` creates it before the file's tests and drops it
 * after, and hands out `pg` pools on it ("instances"), each ended after the file.
 */
import pg from 'pg';
import { afterAll, beforeAll, inject } from 'vitest';
import { pgClient, type SqlClient } from '../../../src/postgres.js';

/** What a test file gets: pools (each a separate "instance") on its own database. */
export interface TestDatabase {
  name: string;
  /** A new pool on the file's database, ended after the file. */
  pool(options?: pg.PoolConfig): pg.Pool;
  /** `pgClient` over a new pool; its listening connection closes after the file. */
  client(options?: pg.PoolConfig): { sql: SqlClient; pool: pg.Pool };
}

let databases = 0;

/** Registers the hooks that create and drop this file's database. */
export function useDatabase(): TestDatabase {
  const server = inject('postgres');
  const name = `t_${process.pid}_${Date.now().toString(36)}_${++databases}`;
  const pools: pg.Pool[] = [];
  const clients: SqlClient[] = [];
  const connection = (database: string): pg.PoolConfig => ({
    host: server.host,
    port: server.port,
    user: server.user,
    password: server.password,
    database,
  });
  const admin = () => new pg.Client(connection('postgres'));
  beforeAll(async () => {
    const client = admin();
    await client.connect();
    await client.query(`CREATE DATABASE ${name}`);
    await client.end();
  });
  afterAll(async () => {
    for (const client of clients.splice(0)) await client.close?.();
    await Promise.all(pools.splice(0).map((pool) => (pool.ended ? undefined : pool.end())));
    const client = admin();
    await client.connect();
    await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await client.end();
  });
  const pool = (options: pg.PoolConfig = {}) => {
    const created = new pg.Pool({ ...connection(name), max: 4, ...options });
    // A connection the tests terminate on purpose must not crash the run.
    created.on('error', () => {});
    pools.push(created);
    return created;
  };
  return {
    name,
    pool,
    client(options) {
      const created = pool(options);
      const sql = pgClient(created);
      clients.push(sql);
      return { sql, pool: created };
    },
  };
}
