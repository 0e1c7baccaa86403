/**
 * {@link SqlClient}: the small port the PostgreSQL storages and lock talk to, so they run on any
 * driver: `pgClient` (a `pg` pool, a real server) and `pgliteClient` (PGlite, in-process) ship
 * with the library; a few lines adapt another driver.
 * @module
 */

/** What a query returns: its rows, and how many rows it returned or changed. */
export interface SqlResult<R> {
  rows: R[];
  rowCount: number;
}

/**
 * A connection to PostgreSQL, as the storages use it. Values always travel as parameters
 * (`$1`, `$2`, …); the storages never build SQL from data.
 *
 * - `query` runs one statement (it may be a `WITH … INSERT … RETURNING` chain: one statement is
 *   atomic on its own).
 * - `transaction` runs `work` between `BEGIN` and `COMMIT` on one connection (`ROLLBACK` when
 *   `work` rejects) and hands it a client bound to that connection.
 * - `listen` (optional) subscribes to a `NOTIFY` channel on a connection of its own and returns
 *   the unsubscribe function. `options.timeoutMs` bounds listening again after that connection
 *   broke (the storages pass their `queryTimeoutMs`). Without it, the lock notices a steal at its next renewal and the
 *   storages have no `changes`.
 * - `close` (optional) releases what the client itself opened (the listening connection), not
 *   the pool or database the app handed in.
 * @example
 * const sql = pgClient(new pg.Pool({ connectionString: process.env.DATABASE_URL }));
 * const { rows } = await sql.query<{ n: number }>('SELECT $1::int AS n', [1]);
 */
export interface SqlClient {
  query<R = Record<string, unknown>>(text: string, params?: readonly unknown[]): Promise<SqlResult<R>>;
  transaction<T>(work: (tx: SqlClient) => Promise<T>): Promise<T>;
  listen?(
    channel: string,
    onNotify: (payload: string) => void,
    options?: { timeoutMs?: number },
  ): Promise<() => Promise<void>>;
  close?(): Promise<void>;
}

/** `channel` as a quoted SQL identifier (for `LISTEN`, which takes no parameter). */
export function quoteIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
