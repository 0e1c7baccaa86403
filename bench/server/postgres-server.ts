/**
 * A real PostgreSQL server for the bench (the test run's, `test/support/postgres-server.ts`),
 * with one database for the bench. `stop()` shuts it down and removes its folder.
 * @module
 */
import pg from 'pg';
import { startPostgresServer } from '../../test/support/postgres-server.js';
import type { PostgresConnection } from './postgres-world.js';

const DATABASE = 'youyou_bench';

/** A running server and the bench's database on it. */
export interface BenchPostgres {
  connection: PostgresConnection;
  stop(): Promise<void>;
}

/** Starts the server and makes the bench's database. */
export async function startPostgres(): Promise<BenchPostgres> {
  // fsync off: the bench measures the server's rules and CPU, not the disk.
  const server = await startPostgresServer(['-c', 'fsync=off']);
  try {
    const admin = new pg.Client({ ...server.info, database: 'postgres' });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${DATABASE}`);
    await admin.end();
  } catch (error) {
    await server.stop();
    throw error;
  }
  return { connection: { ...server.info, database: DATABASE }, stop: () => server.stop() };
}
