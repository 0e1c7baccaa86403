/**
 * What the PostgreSQL storages and lock share: their options, validated once, and
 * {@link PostgresRunner}, which runs every query bounded by `queryTimeoutMs`, turns every driver
 * failure into a `STORAGE_ERROR`, and migrates the schema on first use.
 * @module
 */
import * as z from 'zod/mini';
import { integer } from '../vocabulary/checks.js';
import { AgentError, describeError, Errors } from '../errors.js';
import { TIMED_OUT, withTimeout } from '../timeout.js';
import { parseInput } from '../validate.js';
import { migratePostgres, SchemaNameSchema } from './migrations.js';
import type { SqlClient, SqlResult } from './sql-client.js';

/** Options every PostgreSQL storage and the lock take. */
export interface PostgresOptions {
  /** The connection: `pgClient(pool)` or `pgliteClient(db)` (or your own adapter). */
  sql: SqlClient;
  /** The schema that holds the tables (created by the migration). Default `'youyou'`. */
  schema?: string;
  /** Migrate the schema on first use. Default `true`; with `false`, call `migratePostgres` yourself. */
  migrate?: boolean;
  /**
   * How long one query (or transaction) may take before it fails with `STORAGE_ERROR`. Default
   * 30 000. Such a failure means "not stored": each statement runs in a transaction whose
   * `statement_timeout` ends with this wait, and whose `idle_in_transaction_session_timeout` is
   * this long, so the server cancels what its caller gave up on.
   */
  queryTimeoutMs?: number;
}

const OptionsSchema = z.strictObject({
  sql: z.custom<SqlClient>(
    (value) =>
      typeof value === 'object' &&
      value !== null &&
      typeof (value as SqlClient).query === 'function' &&
      typeof (value as SqlClient).transaction === 'function',
    'must be a SqlClient (pgClient(pool) or pgliteClient(db))',
  ),
  schema: z.optional(SchemaNameSchema),
  migrate: z.optional(z.boolean()),
  queryTimeoutMs: z.optional(integer().check(z.positive())),
});

/** The options, validated (`INVALID_INPUT`), with their defaults. */
export interface ResolvedPostgresOptions {
  sql: SqlClient;
  schema: string;
  migrate: boolean;
  queryTimeoutMs: number;
}

/** Validates the shared options (extra keys are the caller's to check). */
export function resolvePostgresOptions(options: PostgresOptions, what: string): ResolvedPostgresOptions {
  const parsed = parseInput(OptionsSchema, options, what);
  return {
    sql: parsed.sql,
    schema: parsed.schema ?? 'youyou',
    migrate: parsed.migrate ?? true,
    queryTimeoutMs: parsed.queryTimeoutMs ?? 30_000,
  };
}

/**
 * A text the storages accept as a key (a session id, a namespace, a memory id): PostgreSQL text
 * cannot hold U+0000, and a lone surrogate would not read back as itself.
 */
export function storableKey(what: string, options: { allowEmpty: boolean; max: number }) {
  return z.string().check(
    z.minLength(options.allowEmpty ? 0 : 1, `${what} must not be empty`),
    z.maxLength(options.max, `${what} is longer than ${options.max} characters`),
    z.refine((value) => !value.includes('\u0000'), `${what} must not contain U+0000`),
    z.refine((value) => !LONE_SURROGATE.test(value), `${what} must be well-formed Unicode`),
  );
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * What is kept of `queryTimeoutMs` for the `COMMIT` (a tenth, at most a second): a statement
 * that ends later than that is rolled back rather than committed behind its caller's back.
 */
const COMMIT_MARGIN_MS = 1_000;

/** The channel every storage and lock of `schema` rings (`NOTIFY`) when it changes something. */
export function changeChannel(schema: string): string {
  return `${schema}_changes`;
}

/**
 * Runs the storages' SQL: each call bounded by `queryTimeoutMs`, failures as `STORAGE_ERROR`
 * (`INVALID_INPUT` and other `AgentError`s pass as they are), the schema migrated before the
 * first statement when `migrate` is on.
 */
export class PostgresRunner {
  readonly sql: SqlClient;
  readonly schema: string;
  readonly timeoutMs: number;
  readonly #migrate: boolean;
  #ready: Promise<void> | null = null;

  constructor(options: ResolvedPostgresOptions) {
    this.sql = options.sql;
    this.schema = options.schema;
    this.timeoutMs = options.queryTimeoutMs;
    this.#migrate = options.migrate;
  }

  /** `name` qualified with the schema, for SQL text (the schema name is validated). */
  table(name: string): string {
    return `"${this.schema}".${name}`;
  }

  /** One statement, bounded; `what` names it in errors. */
  async query<R>(what: string, text: string, params: readonly unknown[] = []): Promise<SqlResult<R>> {
    await this.ready();
    return this.#deadlined(what, (tx) => tx.query<R>(text, params));
  }

  /** A transaction, bounded as a whole. */
  async transaction<T>(what: string, work: (tx: SqlClient) => Promise<T>): Promise<T> {
    await this.ready();
    return this.#deadlined(what, work);
  }

  /**
   * `work` in a transaction that cannot land after its caller stopped waiting: the server cancels
   * its statements at the deadline (`SET LOCAL statement_timeout`) and ends it if its client goes
   * silent (`idle_in_transaction_session_timeout`, a partition); it rolls back instead of
   * committing once the deadline is too close for a `COMMIT` to arrive in time.
   */
  #deadlined<T>(what: string, work: (tx: SqlClient) => Promise<T>): Promise<T> {
    const margin = Math.min(COMMIT_MARGIN_MS, Math.floor(this.timeoutMs / 10));
    const deadline = Date.now() + this.timeoutMs - margin;
    const left = () => {
      const ms = Math.floor(deadline - Date.now());
      if (ms <= 0) throw new DeadlinePassed();
      return ms;
    };
    return this.bounded(what, () =>
      this.sql.transaction(async (tx) => {
        await tx.query(
          `SELECT set_config('statement_timeout', $1, true), set_config('idle_in_transaction_session_timeout', $2, true)`,
          [String(left()), String(this.timeoutMs)],
        );
        const result = await work(tx);
        left();
        return result;
      }),
    );
  }

  /** Resolves once the schema is migrated (retried on the next call after a failure). */
  ready(): Promise<void> {
    if (!this.#migrate) return Promise.resolve();
    this.#ready ??= this.bounded('migrating the schema', async () => {
      await migratePostgres(this.sql, { schema: this.schema, queryTimeoutMs: this.timeoutMs });
    }).catch((error: unknown) => {
      this.#ready = null;
      throw error;
    });
    return this.#ready;
  }

  /** `work()` bounded by the timeout, with its failure as a `STORAGE_ERROR`. */
  async bounded<T>(what: string, work: () => Promise<T>): Promise<T> {
    let answer: T | typeof TIMED_OUT;
    try {
      answer = await withTimeout(Promise.resolve().then(work), this.timeoutMs);
    } catch (error) {
      if (AgentError.isInstance(error)) throw error;
      // The server cancelling a statement at its deadline is this wait timing out.
      if (error instanceof DeadlinePassed || sqlState(error) === QUERY_CANCELED) answer = TIMED_OUT;
      else throw Errors.storage(`postgres: ${what} failed: ${describeDriverError(error)}`, error);
    }
    if (answer === TIMED_OUT) {
      throw Errors.storage(`postgres: ${what} did not answer within ${this.timeoutMs}ms`);
    }
    return answer;
  }
}

/** A transaction that reached its deadline before it could commit (it rolls back). */
class DeadlinePassed extends Error {}

/** The SQLSTATE of a statement the server cancelled (here: at its `statement_timeout`). */
const QUERY_CANCELED = '57014';

/** A driver error with its SQLSTATE, when it has one. */
function describeDriverError(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? `${describeError(error)} (SQLSTATE ${code})` : describeError(error);
}

/** The SQLSTATE of a driver error, if any. */
export function sqlState(error: unknown): string | undefined {
  for (let e: unknown = error, depth = 0; e && depth < 3; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}
