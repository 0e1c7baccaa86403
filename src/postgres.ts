/**
 * `youyou-agent/postgres`: sessions, memories and the session lock in PostgreSQL, so a user's
 * sessions follow them to every device and several server instances share one database with
 * fenced writers. `pg` and `@electric-sql/pglite` are optional peer dependencies: hand in your
 * own `pg.Pool` (`pgClient`) or `PGlite` (`pgliteClient`).
 * @module
 */
export type { SqlClient, SqlResult } from './postgres/sql-client.js';
export { pgClient, type PgPoolLike, type PgPoolClientLike } from './postgres/pg-client.js';
export { pgliteClient, type PGliteLike, type PGliteTransactionLike } from './postgres/pglite-client.js';
export type { PostgresOptions } from './postgres/options.js';
export { migratePostgres, SCHEMA_VERSION } from './postgres/migrations.js';
export { PostgresSessionStorage, type PostgresSessionStorageOptions } from './postgres/session-storage.js';
export { PostgresMemoryStorage } from './postgres/memory-storage.js';
export { PostgresSessionLock, type PostgresSessionLockOptions } from './postgres/session-lock.js';
export { findInterruptedSessions, type InterruptedSession } from './postgres/interrupted-sessions.js';
