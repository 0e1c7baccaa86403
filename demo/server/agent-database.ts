/**
 * The demo server's database: PostgreSQL on `DATABASE_URL` when it is set (through `pg`), else
 * PGlite (PostgreSQL in WebAssembly, in this process) in a local data folder, so server mode needs
 * nothing installed. PGlite has one connection, so the demo opens one instance and every agent of
 * the dev server shares it.
 * @module
 */
import { mkdir } from 'node:fs/promises';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { migratePostgres, pgClient, pgliteClient, type SqlClient } from 'youyou-agent/postgres';

/** Where the demo's database lives. */
export interface DatabaseChoice {
  /** `postgres://…`: a PostgreSQL server. Wins over `dataDir`. */
  databaseUrl?: string | undefined;
  /** PGlite's data folder, created when missing. */
  dataDir: string;
}

/** An open database, migrated. */
export interface DemoDatabase {
  readonly sql: SqlClient;
  /** Says where the data is, for the log: the folder, or the server's host (never its password). */
  readonly where: string;
  close(): Promise<void>;
}

/**
 * Opens the database `choice` names and brings its tables up to date once, so the storages built
 * per session need not.
 * @example
 * const db = await openDemoDatabase({ dataDir: '.demo-data/pglite' });
 */
export async function openDemoDatabase(choice: DatabaseChoice): Promise<DemoDatabase> {
  if (choice.databaseUrl) {
    const pool = new pg.Pool({ connectionString: choice.databaseUrl, max: 10, statement_timeout: 30_000 });
    const sql = pgClient(pool);
    try {
      await migratePostgres(sql);
    } catch (error) {
      await pool.end();
      throw error;
    }
    const url = new URL(choice.databaseUrl);
    return {
      sql,
      where: `PostgreSQL at ${url.hostname}${url.port ? `:${url.port}` : ''}${url.pathname}`,
      async close() {
        await sql.close?.();
        await pool.end();
      },
    };
  }
  await mkdir(choice.dataDir, { recursive: true });
  const db = await PGlite.create(choice.dataDir);
  const sql = pgliteClient(db);
  try {
    await migratePostgres(sql);
  } catch (error) {
    await db.close();
    throw error;
  }
  return {
    sql,
    where: `PGlite in ${choice.dataDir}`,
    async close() {
      await sql.close?.();
      await db.close();
    },
  };
}
