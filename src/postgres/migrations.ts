/**
 * `migratePostgres`: creates and upgrades the tables of the PostgreSQL storages and lock, in
 * one schema. Versioned (the `migrations` table records each version applied) and idempotent,
 * and run under a transaction-scoped advisory lock, so any number of instances starting at once
 * migrate exactly once: the others wait for the lock, then find nothing left to do.
 * @module
 */
import { Errors } from '../errors.js';
import { TIMED_OUT, withTimeout } from '../timeout.js';
import { parseInput } from '../validate.js';
import * as z from 'zod/mini';
import { integer } from '../vocabulary/checks.js';
import type { SqlClient } from './sql-client.js';

/**
 * The migrations, in order: version n is `MIGRATIONS[n - 1]`, a list of statements with `%s`
 * standing for the quoted schema. Append only; never edit a released version.
 *
 * `title` and `model_id` hold JSON strings (`'""'` when empty): PostgreSQL text cannot hold
 * U+0000, which a user's message (and so a title) may contain.
 *
 * Text that is compared or ordered (ids, namespaces, ISO timestamps) is `COLLATE "C"`: byte
 * order, the same on every server whatever its locale, so paging never depends on the locale.
 */
const MIGRATIONS: readonly (readonly string[])[] = [
  [
    `CREATE SEQUENCE %s.writer_epochs AS bigint`,
    `CREATE TABLE %s.sessions (
      namespace text COLLATE "C" NOT NULL,
      id text COLLATE "C" NOT NULL,
      writer_epoch bigint,
      title text NOT NULL DEFAULT '""',
      model_id text NOT NULL DEFAULT '""',
      created_at text COLLATE "C" NOT NULL DEFAULT '',
      updated_at text COLLATE "C" NOT NULL DEFAULT '',
      turn_count integer NOT NULL DEFAULT 0,
      event_count integer NOT NULL DEFAULT 0,
      PRIMARY KEY (namespace, id)
    )`,
    `CREATE INDEX sessions_newest ON %s.sessions (namespace, updated_at DESC, id DESC) WHERE event_count > 0`,
    `CREATE TABLE %s.events (
      namespace text COLLATE "C" NOT NULL,
      session_id text COLLATE "C" NOT NULL,
      seq integer NOT NULL,
      type text NOT NULL,
      body text NOT NULL,
      search_text text NOT NULL,
      PRIMARY KEY (namespace, session_id, seq),
      FOREIGN KEY (namespace, session_id) REFERENCES %s.sessions (namespace, id) ON DELETE CASCADE
    )`,
    `CREATE TABLE %s.drafts (
      namespace text COLLATE "C" NOT NULL,
      session_id text COLLATE "C" NOT NULL,
      body text NOT NULL,
      PRIMARY KEY (namespace, session_id)
    )`,
    `CREATE SEQUENCE %s.memory_versions AS bigint`,
    `CREATE TABLE %s.memories (
      id text COLLATE "C" PRIMARY KEY,
      namespace text COLLATE "C" NOT NULL,
      updated_at text COLLATE "C" NOT NULL,
      version bigint NOT NULL,
      body text NOT NULL
    )`,
    `CREATE INDEX memories_namespace ON %s.memories (namespace, updated_at DESC)`,
    `CREATE TABLE %s.locks (
      session_id text COLLATE "C" PRIMARY KEY,
      token text NOT NULL,
      holder text NOT NULL,
      lease_until timestamptz NOT NULL
    )`,
  ],
  [
    // The owner with the summary (from the session's `session_owner` record), so an owner check
    // and a listing never read events.
    `ALTER TABLE %s.sessions ADD COLUMN owner text COLLATE "C"`,
    // The turn whose `turn_started` has no `turn_ended` yet, kept by the statement that inserts
    // the markers: the sweep for interrupted turns reads an index, not the events.
    `ALTER TABLE %s.sessions ADD COLUMN open_turn_id text COLLATE "C"`,
    `ALTER TABLE %s.sessions ADD COLUMN open_turn_since text COLLATE "C"`,
    `CREATE INDEX sessions_open_turns ON %s.sessions (open_turn_since, namespace, id) WHERE open_turn_id IS NOT NULL`,
    `UPDATE %s.sessions s SET owner = o.owner FROM (
       SELECT DISTINCT ON (namespace, session_id) namespace, session_id, body::json -> 'payload' -> 'value' ->> 'userId' AS owner
       FROM %s.events WHERE type = 'metadata' AND body::json -> 'payload' ->> 'key' = 'session_owner'
       ORDER BY namespace, session_id, seq
     ) o WHERE o.namespace = s.namespace AND o.session_id = s.id AND o.owner IS NOT NULL`,
    `UPDATE %s.sessions s SET open_turn_id = m.turn_id, open_turn_since = m.since FROM (
       SELECT DISTINCT ON (namespace, session_id) namespace, session_id,
         body::json -> 'payload' ->> 'key' AS key, body::json -> 'payload' -> 'value' ->> 'turnId' AS turn_id,
         to_char((body::json ->> 'timestamp')::timestamptz AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS since
       FROM %s.events WHERE type = 'metadata' AND body::json -> 'payload' ->> 'key' IN ('turn_started', 'turn_ended')
       ORDER BY namespace, session_id, seq DESC
     ) m WHERE m.key = 'turn_started' AND m.namespace = s.namespace AND m.session_id = s.id`,
    // Whether the lease's holder runs a turn: a new turn elsewhere is refused by the lease itself.
    `ALTER TABLE %s.locks ADD COLUMN turn_id text`,
    // Memory ids are unique per namespace: one user's id never replaces another user's memory.
    `ALTER TABLE %s.memories DROP CONSTRAINT memories_pkey`,
    `ALTER TABLE %s.memories ADD PRIMARY KEY (namespace, id)`,
  ],
];

/** A schema name: a plain lower-case identifier, so it can be written into SQL as it is. */
export const SchemaNameSchema = z.string().check(z.regex(/^[a-z_][a-z0-9_]{0,39}$/));

/** The schema version this release needs. */
export const SCHEMA_VERSION = MIGRATIONS.length;

/**
 * Brings `schema` (default `'youyou'`) up to {@link SCHEMA_VERSION}: creates the schema and its
 * tables on a fresh database (`from` is then 0), applies the missing versions on an older one,
 * does nothing on a current one (`from === to`). All in one transaction, under an advisory lock
 * per schema. A schema newer than this release rejects with `STORAGE_ERROR`, and so does a
 * migration that takes longer than `queryTimeoutMs` (default 30 000; the server cancels it then too).
 * @example
 * const { from, to } = await migratePostgres(pgClient(pool));
 * console.log(`schema migrated from ${from} to ${to}`);
 */
export async function migratePostgres(
  sql: SqlClient,
  options: { schema?: string; queryTimeoutMs?: number } = {},
): Promise<{ from: number; to: number }> {
  const { schema = 'youyou', queryTimeoutMs = 30_000 } = parseInput(
    z.strictObject({
      schema: z.optional(SchemaNameSchema),
      queryTimeoutMs: z.optional(integer().check(z.positive())),
    }),
    options,
    'options',
  );
  const quoted = `"${schema}"`;
  const migrating = sql.transaction(async (tx) => {
    // The server gives up when the caller does: no migration lands behind a timed-out start.
    const limit = String(queryTimeoutMs);
    await tx.query(
      `SELECT set_config('statement_timeout', $1, true), set_config('idle_in_transaction_session_timeout', $1, true)`,
      [limit],
    );
    // Held until this transaction ends: a second migrator waits here, then sees the new version.
    await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`youyou-agent:migrate:${schema}`]);
    await tx.query(`CREATE SCHEMA IF NOT EXISTS ${quoted}`);
    await tx.query(
      `CREATE TABLE IF NOT EXISTS ${quoted}.migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    const { rows } = await tx.query<{ version: number | null }>(
      `SELECT max(version) AS version FROM ${quoted}.migrations`,
    );
    const from = Number(rows[0]?.version ?? 0);
    if (from > SCHEMA_VERSION) {
      throw Errors.storage(
        `postgres: schema '${schema}' is at version ${from}, newer than this release's ${SCHEMA_VERSION}`,
      );
    }
    for (let version = from + 1; version <= SCHEMA_VERSION; version++) {
      for (const statement of MIGRATIONS[version - 1]!) await tx.query(statement.replaceAll('%s', quoted));
      await tx.query(`INSERT INTO ${quoted}.migrations (version) VALUES ($1)`, [version]);
    }
    return { from, to: SCHEMA_VERSION };
  });
  const answer = await withTimeout(migrating, queryTimeoutMs);
  if (answer === TIMED_OUT) {
    void migrating.catch(() => {});
    throw Errors.storage(`postgres: migrating schema '${schema}' did not answer within ${queryTimeoutMs}ms`);
  }
  return answer;
}
