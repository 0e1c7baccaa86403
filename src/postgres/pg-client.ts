/**
 * `pgClient`: a {@link SqlClient} over a `pg` pool (node-postgres). Only types come from `pg`
 * here: the app hands in its own `Pool`, so an app that never imports `youyou-agent/postgres`
 * neither installs nor bundles `pg`.
 * @module
 */
import { TIMED_OUT, withTimeout } from '../timeout.js';
import { quoteIdentifier, type SqlClient, type SqlResult } from './sql-client.js';

/** The part of a `pg` client (a pooled connection) this adapter uses. */
export interface PgPoolClientLike {
  query(text: string, values?: unknown[]): Promise<{ rows: unknown[]; rowCount: number | null }>;
  release(destroy?: boolean | Error): void;
  on(event: 'notification', listener: (message: { channel: string; payload?: string }) => void): unknown;
  on(event: 'error' | 'end', listener: (error?: Error) => void): unknown;
  removeListener(event: 'error', listener: (error?: Error) => void): unknown;
}

/** The part of a `pg.Pool` this adapter uses (a real `Pool` fits). */
export interface PgPoolLike {
  query(text: string, values?: unknown[]): Promise<{ rows: unknown[]; rowCount: number | null }>;
  connect(): Promise<PgPoolClientLike>;
}

/** Delay before listening again after the listening connection broke (doubles up to 5 s). */
const RELISTEN_MS = [100, 200, 400, 800, 1_600, 3_200, 5_000];

/**
 * A {@link SqlClient} over `pool`. Queries go to the pool; a transaction holds one pooled
 * connection from `BEGIN` to `COMMIT`; `listen` keeps one connection of its own (taken from the
 * pool at the first `listen`, listening again after it breaks) until the last unlisten or
 * `close()`. Set `statement_timeout` on the pool too: the storages stop waiting for a query after
 * `queryTimeoutMs`, but only the server can stop the query itself.
 * @example
 * import pg from 'pg';
 * const sql = pgClient(new pg.Pool({ connectionString: process.env.DATABASE_URL, statement_timeout: 30_000 }));
 * const storage = new PostgresSessionStorage({ sql });
 */
export function pgClient(pool: PgPoolLike): SqlClient {
  const listener = new PgListener(pool);
  return {
    query: <R>(text: string, params?: readonly unknown[]) => run<R>(pool, text, params),
    async transaction<T>(work: (tx: SqlClient) => Promise<T>): Promise<T> {
      const connection = await pool.connect();
      let broken: Error | undefined;
      // A connection that dies mid-transaction emits `error`; unheard, Node would crash the process.
      // The failing query rejects as well, which is how the caller learns of it.
      const onError = (error?: Error) => (broken ??= error ?? new Error('the connection broke'));
      connection.on('error', onError);
      try {
        await connection.query('BEGIN');
        const tx: SqlClient = {
          query: <R>(text: string, params?: readonly unknown[]) => run<R>(connection, text, params),
          // One connection, one transaction: a nested one joins it.
          transaction: (inner) => inner(tx),
        };
        const result = await work(tx);
        await connection.query('COMMIT');
        return result;
      } catch (error) {
        try {
          await connection.query('ROLLBACK');
        } catch (rollbackError) {
          // A connection that cannot even roll back is not handed back to the pool.
          broken = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
        }
        throw error;
      } finally {
        connection.removeListener('error', onError);
        connection.release(broken);
      }
    },
    listen: (channel, onNotify, options) => listener.listen(channel, onNotify, options?.timeoutMs),
    close: () => listener.close(),
  };
}

async function run<R>(
  target: Pick<PgPoolLike, 'query'>,
  text: string,
  params?: readonly unknown[],
): Promise<SqlResult<R>> {
  const result = await target.query(text, params ? [...params] : undefined);
  return { rows: result.rows as R[], rowCount: result.rowCount ?? result.rows.length };
}

/** One listening connection per `pgClient`, shared by every channel and callback. */
class PgListener {
  readonly #pool: PgPoolLike;
  readonly #callbacks = new Map<string, Set<(payload: string) => void>>();
  #connection: Promise<PgPoolClientLike> | null = null;
  #closed = false;
  #failures = 0;
  /** How long listening again may take (the shortest any listener asked for). */
  #timeoutMs = 30_000;

  constructor(pool: PgPoolLike) {
    this.#pool = pool;
  }

  async listen(
    channel: string,
    onNotify: (payload: string) => void,
    timeoutMs?: number,
  ): Promise<() => Promise<void>> {
    if (timeoutMs !== undefined && timeoutMs > 0) this.#timeoutMs = Math.min(this.#timeoutMs, timeoutMs);
    let callbacks = this.#callbacks.get(channel);
    const first = callbacks === undefined;
    if (!callbacks) this.#callbacks.set(channel, (callbacks = new Set()));
    const callback = (payload: string) => onNotify(payload);
    callbacks.add(callback);
    if (first) {
      try {
        const connection = await this.#connect();
        await connection.query(`LISTEN ${quoteIdentifier(channel)}`);
      } catch (error) {
        callbacks.delete(callback);
        if (callbacks.size === 0) this.#callbacks.delete(channel);
        throw error;
      }
    }
    return async () => {
      const set = this.#callbacks.get(channel);
      if (!set?.delete(callback) || set.size > 0) return;
      this.#callbacks.delete(channel);
      if (this.#callbacks.size === 0) return this.close(false);
      const connection = await this.#connection?.catch(() => null);
      await connection?.query(`UNLISTEN ${quoteIdentifier(channel)}`).catch(() => {});
    };
  }

  /** Gives the listening connection up (destroyed: it still listens); `final` ends listening for good. */
  async close(final = true): Promise<void> {
    if (final) this.#closed = true;
    const connection = this.#connection;
    this.#connection = null;
    const open = await connection?.catch(() => null);
    open?.release(true);
  }

  #connect(): Promise<PgPoolClientLike> {
    if (this.#closed) return Promise.reject(new Error('the pgClient was closed'));
    this.#connection ??= this.#pool.connect().then((connection) => {
      connection.on('notification', (message) => {
        for (const callback of this.#callbacks.get(message.channel) ?? []) callback(message.payload ?? '');
      });
      const lost = () => this.#lost(connection);
      connection.on('error', lost);
      connection.on('end', lost);
      this.#failures = 0;
      return connection;
    });
    const connecting = this.#connection;
    connecting.catch(() => {
      if (this.#connection === connecting) this.#connection = null;
    });
    return connecting;
  }

  /** The listening connection broke: listen again on a new one, after a pause. */
  #lost(connection: PgPoolClientLike): void {
    const held = this.#connection;
    void held?.then((current) => {
      // `error` and `end` may both come: the connection is given up once.
      if (current !== connection || this.#connection !== held) return;
      this.#connection = null;
      connection.release(true);
      this.#relisten();
    });
  }

  #relisten(): void {
    if (this.#closed || this.#callbacks.size === 0) return;
    const delay = RELISTEN_MS[Math.min(this.#failures++, RELISTEN_MS.length - 1)]!;
    const timer = setTimeout(() => {
      const connecting = this.#connect();
      const listening = connecting.then(async (connection) => {
        for (const channel of this.#callbacks.keys()) {
          await connection.query(`LISTEN ${quoteIdentifier(channel)}`);
        }
      });
      // Bounded: a server that accepts and then never answers (a partition) must not end
      // listening for good. The hung connection is destroyed, and the next try starts over.
      void withTimeout(listening, this.#timeoutMs)
        .then((answer) => {
          if (answer !== TIMED_OUT) return;
          if (this.#connection === connecting) this.#connection = null;
          void connecting.then((connection) => connection.release(true)).catch(() => {});
          this.#relisten();
        })
        .catch(() => this.#relisten());
    }, delay);
    (timer as { unref?: () => void }).unref?.();
  }
}
