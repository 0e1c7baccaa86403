/**
 * `findInterruptedSessions`: the sessions a server should recover, read from the `sessions`
 * table's open-turn columns and the `locks` table, never from the events.
 * @module
 */
import * as z from 'zod/mini';
import { integer } from '../vocabulary/checks.js';
import { parseInput } from '../validate.js';
import { SchemaNameSchema } from './migrations.js';
import { PostgresRunner } from './options.js';
import { malformed } from './session-rows.js';
import type { SqlClient } from './sql-client.js';

/** A session whose last turn started and never ended, and that nobody holds. */
export interface InterruptedSession {
  sessionId: string;
  /** The storage namespace it is kept in. */
  namespace: string;
  /** Its owner (the `session_owner` record a server wrote when it created it). */
  userId: string;
  /** The turn that started and has no `turn_ended`. */
  turnId: string;
  /** When that turn started (ISO 8601, UTC). */
  since: string;
}

/** How long the query may take (the storages' default `queryTimeoutMs`). */
const QUERY_TIMEOUT_MS = 30_000;

const OptionsSchema = z.strictObject({
  schema: z.optional(SchemaNameSchema),
  limit: z.optional(integer().check(z.minimum(1), z.maximum(10_000))),
});

const RowSchema = z.object({
  session_id: z.string(),
  namespace: z.string(),
  owner: z.string(),
  open_turn_id: z.string(),
  open_turn_since: z.string(),
});

/** The query of {@link findInterruptedSessions} (`$1` the limit), for `EXPLAIN` in the bench. */
export function interruptedSessionsQuery(schema: string): string {
  return `SELECT s.id AS session_id, s.namespace, s.owner, s.open_turn_id, s.open_turn_since
     FROM "${schema}".sessions s
     LEFT JOIN "${schema}".locks l ON l.session_id = s.id AND l.lease_until > clock_timestamp()
     WHERE s.open_turn_id IS NOT NULL AND s.owner IS NOT NULL AND s.event_count > 0 AND l.session_id IS NULL
     ORDER BY s.open_turn_since, s.namespace, s.id
     LIMIT $1`;
}

/**
 * The sessions whose last `turn_started` has no `turn_ended` after it and whose lease is free or
 * expired, oldest turn first (at most `limit`, default 100), with their owners. Sessions without
 * an owner (not created by a server) are left out: nobody could open them for a user. One
 * indexed query, bounded by 30 s; the schema must be migrated.
 * @example
 * for (const { sessionId, userId } of await findInterruptedSessions(sql)) {
 *   console.log(`recover ${sessionId} for ${userId}`);
 * }
 */
export async function findInterruptedSessions(
  sql: SqlClient,
  options: { schema?: string; limit?: number } = {},
): Promise<InterruptedSession[]> {
  const { schema = 'youyou', limit = 100 } = parseInput(OptionsSchema, options, 'options');
  const runner = new PostgresRunner({ sql, schema, migrate: false, queryTimeoutMs: QUERY_TIMEOUT_MS });
  const { rows } = await runner.query<unknown>('finding interrupted sessions', interruptedSessionsQuery(schema), [
    limit,
  ]);
  return rows.map((row) => {
    const parsed = z.safeParse(RowSchema, row);
    if (!parsed.success) throw malformed('an interrupted session');
    const { session_id, namespace, owner, open_turn_id, open_turn_since } = parsed.data;
    return { sessionId: session_id, namespace, userId: owner, turnId: open_turn_id, since: open_turn_since };
  });
}
