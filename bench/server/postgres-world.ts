/**
 * An instance's sessions in PostgreSQL: one `pg` pool and `pgClient` per instance process, a
 * `PostgresSessionStorage` per user (namespace = the user's id), and one `PostgresSessionLock`
 * named after the instance.
 * @module
 */
import pg from 'pg';
import { pgClient, PostgresSessionLock, PostgresSessionStorage } from '../../src/postgres.js';
import type { AgentWorld } from './agents.js';

/** Where the database is. */
export interface PostgresConnection {
  host: string;
  port: number;
  user: string;
  password: string;
  database: string;
}

/** The world of one instance on `connection`, and what closes its connections. */
export function postgresWorld(connection: PostgresConnection & { holderId: string }): {
  world: AgentWorld;
  close(): Promise<void>;
} {
  const { holderId, ...where } = connection;
  const pool = new pg.Pool({ ...where, max: 10 });
  // A connection the server drops must not end the process: the storage reports it.
  pool.on('error', () => {});
  const sql = pgClient(pool);
  const storages = new Map<string, PostgresSessionStorage>();
  return {
    world: {
      lock: new PostgresSessionLock({ sql, holderId }),
      storageFor(userId) {
        let storage = storages.get(userId);
        if (!storage)
          storages.set(userId, (storage = new PostgresSessionStorage({ sql, namespace: userId })));
        return storage;
      },
    },
    close: async () => {
      await sql.close?.();
      await pool.end();
    },
  };
}
