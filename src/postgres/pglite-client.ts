/**
 * `pgliteClient`: a {@link SqlClient} over PGlite (PostgreSQL compiled to WebAssembly, in
 * process). Only types come from `@electric-sql/pglite`: the app hands in its own instance.
 * @module
 */
import type { SqlClient, SqlResult } from './sql-client.js';

interface PgliteResults {
  rows: unknown[];
  affectedRows?: number;
  rowCount?: number;
}

/** The part of a PGlite transaction this adapter uses. */
export interface PGliteTransactionLike {
  query(text: string, params?: unknown[]): Promise<PgliteResults>;
}

/** The part of a `PGlite` instance this adapter uses (a real `PGlite` fits). */
export interface PGliteLike extends PGliteTransactionLike {
  transaction<T>(work: (tx: PGliteTransactionLike) => Promise<T>): Promise<T>;
  listen(channel: string, callback: (payload: string) => void): Promise<() => Promise<void>>;
}

/**
 * A {@link SqlClient} over `db`. PGlite has one connection: its queries and transactions run one
 * at a time, so it cannot show contention between writers (the fencing still holds), and its
 * `NOTIFY`s reach only this instance. Right for a browser, a single process, tests and demos.
 * @example
 * import { PGlite } from '@electric-sql/pglite';
 * const storage = new PostgresSessionStorage({ sql: pgliteClient(await PGlite.create()) });
 */
export function pgliteClient(db: PGliteLike): SqlClient {
  const over =
    (target: PGliteTransactionLike): SqlClient['query'] =>
    async <R>(text: string, params?: readonly unknown[]): Promise<SqlResult<R>> => {
      const result = await target.query(text, params ? [...params] : undefined);
      return {
        rows: result.rows as R[],
        rowCount: result.rowCount ?? result.affectedRows ?? result.rows.length,
      };
    };
  return {
    query: over(db),
    transaction: (work) =>
      db.transaction((raw) => {
        const tx: SqlClient = { query: over(raw), transaction: (inner) => inner(tx) };
        return work(tx);
      }),
    // PGlite puts the name into `LISTEN` as it is: the storages pass plain lower-case identifiers.
    listen: (channel, onNotify) => db.listen(channel, onNotify),
  };
}
