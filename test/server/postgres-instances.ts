/**
 * Server instances on one real PostgreSQL database, for the several-instances tests: each
 * instance has its own `pg` pool (its own connections, named after it), its own
 * `PostgresSessionStorage` per user (namespace = the user's id) and its own
 * `PostgresSessionLock`, behind its own handler on real HTTP. `crash()` kills an instance the
 * way a process dies: its connections are cut and its pool ended, nothing released, its HTTP
 * server gone. Also: the stored history read back in SQL, and the checks every test makes on it.
 * @module
 */
import { expect } from 'vitest';
import type { Message, ModelProvider, SessionEvent, ToolHandler } from '../../src/index.js';
import { PostgresSessionLock, PostgresSessionStorage } from '../../src/postgres.js';
import type pg from 'pg';
import type { TestDatabase } from '../postgres/support/server.js';
import type { AgentHandlerOptions } from '../../src/server.js';
import { startHandler, type RunningServer, type StorageWorld } from './support.js';

/** One instance: a pool, a lock, a handler. */
export interface Instance {
  name: string;
  lock: PostgresSessionLock;
  server: RunningServer;
  /** The instance dies: connections cut, pool ended, HTTP server closed; no lease released. */
  crash(): Promise<void>;
}

/** What the instances of one test share: the database, a schema, the model and the tools. */
export interface InstanceOptions {
  database: TestDatabase;
  /** A pool of the test's own, outside every instance: it reads the tables and cuts connections. */
  observer: pg.Pool;
  schema: string;
  provider: ModelProvider;
  tools: ToolHandler[];
  leaseMs?: number;
  /** More options of the instance's handler. */
  handler?: Partial<AgentHandlerOptions>;
}

/** Starts instance `name` (its pool's connections carry `application_name` = `<schema>-<name>`). */
export async function startInstance(name: string, options: InstanceOptions): Promise<Instance> {
  const { database, schema } = options;
  const applicationName = `${schema}-${name}`;
  const { sql, pool } = database.client({ application_name: applicationName, max: 8 });
  const storages = new Map<string, PostgresSessionStorage>();
  const world: StorageWorld = {
    storageFor(userId) {
      let storage = storages.get(userId);
      if (!storage)
        storages.set(userId, (storage = new PostgresSessionStorage({ sql, schema, namespace: userId })));
      return storage;
    },
  };
  const lock = new PostgresSessionLock({ sql, schema, holderId: name, leaseMs: options.leaseMs ?? 10_000 });
  const server = await startHandler({ provider: options.provider, world, lock, tools: options.tools }, options.handler);
  return {
    name,
    lock,
    server,
    async crash() {
      await server.close();
      // Ending the pool waits for connections in use (the listening one never comes back):
      // do not wait for it, cut them all instead.
      void pool.end().catch(() => {});
      await options.observer.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1`,
        [applicationName],
      );
    },
  };
}

/** One stored event, with its sequence number, as the table holds it. */
export interface StoredRow {
  seq: number;
  event: SessionEvent;
}

/** The session's stored events, read in SQL (not through the storage), in sequence order. */
export async function storedRows(observer: pg.Pool, schema: string, sessionId: string): Promise<StoredRow[]> {
  const { rows } = await observer.query<{ seq: string | number; body: unknown }>(
    `SELECT seq, body FROM "${schema}".events WHERE session_id = $1 ORDER BY seq`,
    [sessionId],
  );
  return rows.map((row) => ({
    seq: Number(row.seq),
    event: (typeof row.body === 'string' ? JSON.parse(row.body) : row.body) as SessionEvent,
  }));
}

/** A metadata event's `turnId`, or `null`. */
export function turnOf(event: SessionEvent): string | null {
  const { payload } = event;
  if (payload.type !== 'metadata') return null;
  const value = payload.value as { turnId?: unknown } | null;
  return typeof value?.turnId === 'string' ? value.turnId : null;
}

/** The key of a metadata event, or its payload type. */
export function kindOf(event: SessionEvent): string {
  return event.payload.type === 'metadata' ? event.payload.key : event.payload.type;
}

/**
 * The problems of a stored history under the several-instances rules, `[]` when there are none:
 * - sequence numbers are 1, 2, 3 … with no gap and no duplicate;
 * - turns never interleave: a `turn_started` comes only when no turn is open (or the open one
 *   stored nothing but its start: a writer fenced out right after it, which resume ignores), and
 *   every event that names a turn lies between that turn's start and its end (each turn's
 *   events are contiguous);
 * - nothing is stored twice: one `user_message` per distinct text, one `tool_call` and one
 *   `tool_result` per call id, one start and at most one end per turn.
 */
export function historyProblems(rows: readonly StoredRow[]): string[] {
  const problems: string[] = [];
  rows.forEach((row, i) => {
    if (row.seq !== i + 1) problems.push(`row ${i} has sequence number ${row.seq}`);
  });
  let open: string | null = null;
  /** The open turn has stored nothing but its start. */
  let bare = false;
  const started = new Set<string>();
  const ended = new Set<string>();
  const seen = new Map<string, number>();
  const once = (key: string, seq: number) => {
    const first = seen.get(key);
    if (first !== undefined) problems.push(`${key} at ${seq} was stored before, at ${first}`);
    else seen.set(key, seq);
  };
  for (const { seq, event } of rows) {
    const kind = kindOf(event);
    const turnId = turnOf(event);
    const { payload } = event;
    if (kind !== 'turn_started') bare = false;
    if (payload.type === 'user_message') once(`user_message ${JSON.stringify(payload.content)}`, seq);
    if (payload.type === 'tool_call' || payload.type === 'tool_result')
      once(`${kind} ${payload.callId}`, seq);
    if (kind === 'turn_started') {
      // A start with nothing after it is a writer cut off right after it (its user message was
      // refused): resume counts no turn there, and neither does this check.
      if (open !== null && !bare) problems.push(`turn ${turnId} starts at ${seq} while turn ${open} is open`);
      bare = true;
      if (started.has(turnId!)) problems.push(`turn ${turnId} starts twice (again at ${seq})`);
      started.add(turnId!);
      open = turnId;
      continue;
    }
    if (kind === 'turn_ended') {
      if (open !== turnId) problems.push(`turn ${turnId} ends at ${seq} while ${open ?? 'no turn'} is open`);
      if (ended.has(turnId!)) problems.push(`turn ${turnId} ends twice (again at ${seq})`);
      ended.add(turnId!);
      open = null;
      continue;
    }
    if (turnId !== null && turnId !== open) problems.push(`${kind} of turn ${turnId} at ${seq} outside it`);
  }
  return problems;
}

/** Every stored turn's end status, in order. */
export function endedStatuses(rows: readonly StoredRow[]): string[] {
  return rows.flatMap(({ event }) =>
    kindOf(event) === 'turn_ended'
      ? [String((event.payload as { value: { status?: unknown } }).value.status)]
      : [],
  );
}

/** The texts of the stored user messages, in order. */
export function userTexts(rows: readonly StoredRow[]): string[] {
  return rows.flatMap(({ event }) =>
    event.payload.type === 'user_message' && event.payload.content[0]?.type === 'text'
      ? [event.payload.content[0].text]
      : [],
  );
}

/** Asserts the several-instances rules on a session's stored history and returns its rows. */
export async function expectCleanHistory(
  observer: pg.Pool,
  schema: string,
  sessionId: string,
): Promise<StoredRow[]> {
  const rows = await storedRows(observer, schema, sessionId);
  expect(historyProblems(rows)).toEqual([]);
  return rows;
}

/** The kinds of messages, for a compact comparison. */
export const typesOf = (messages: readonly Message[]) => messages.map((m) => m.type);

/** The values of the stored `turn_recovery` records, in order. */
export function recoveryRows(rows: readonly StoredRow[]): unknown[] {
  return rows.flatMap(({ event }) =>
    kindOf(event) === 'turn_recovery' ? [(event.payload as { value: unknown }).value] : [],
  );
}
