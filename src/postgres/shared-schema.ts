/**
 * What the PostgreSQL storages and locks of one process share per `(sql, schema)`: the leases
 * its locks hold (so a storage's writer claim can name its lease) and the change feed. Both are
 * built by the app from the same `sql` and `schema`; this is how they find each other.
 * @module
 */
import { BellFeed } from './change-feed.js';
import { changeChannel, type PostgresRunner } from './options.js';
import type { SqlClient } from './sql-client.js';

/** The part of one `(sql, schema)` that its storages and locks share. */
export class SharedSchema {
  /** Whether a `PostgresSessionLock` was built on it: then every writer claim needs a lease. */
  locked = false;
  /** The tokens of the leases held here, per session, the newest last. */
  readonly #leases = new Map<string, string[]>();
  #bells: BellFeed | null = null;

  /** A lease of the session was taken here. */
  held(sessionId: string, token: string): void {
    const tokens = this.#leases.get(sessionId);
    if (tokens) tokens.push(token);
    else this.#leases.set(sessionId, [token]);
  }

  /** That lease ended (released or lost). */
  ended(sessionId: string, token: string): void {
    const tokens = this.#leases.get(sessionId);
    if (!tokens) return;
    const at = tokens.indexOf(token);
    if (at >= 0) tokens.splice(at, 1);
    if (tokens.length === 0) this.#leases.delete(sessionId);
  }

  /** The token of the newest lease of the session held here, or `null`. */
  tokenOf(sessionId: string): string | null {
    return this.#leases.get(sessionId)?.at(-1) ?? null;
  }

  /** The doorbells of the schema: one `LISTEN` for every storage and lock on it (the first one's runner). */
  bells(runner: PostgresRunner): BellFeed {
    this.#bells ??= new BellFeed(runner, changeChannel(runner.schema));
    return this.#bells;
  }
}

const registry = new WeakMap<SqlClient, Map<string, SharedSchema>>();

/** The shared part of `(sql, schema)`, made on first use. */
export function sharedSchema(sql: SqlClient, schema: string): SharedSchema {
  let schemas = registry.get(sql);
  if (!schemas) registry.set(sql, (schemas = new Map()));
  let shared = schemas.get(schema);
  if (!shared) schemas.set(schema, (shared = new SharedSchema()));
  return shared;
}
