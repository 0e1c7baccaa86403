/**
 * The database's shape: one IndexedDB database holds session summaries, session events,
 * memories, writer epochs and drafts. Its version only grows; each step of {@link MIGRATIONS} upgrades from the version
 * before, so a browser that last ran any older release upgrades in order and keeps its data.
 * @module
 */
import type { DBSchema, IDBPDatabase, IDBPTransaction, StoreNames } from 'idb';

/** Default database name. */
export const DEFAULT_DB_NAME = 'youyou-agent';

/** A stored event: the session's `SessionEvent` under the key `[sessionId, seq]`. */
export interface EventRecord {
  sessionId: string;
  /** Position in the session, 0-based, assigned inside the write transaction: append order. */
  seq: number;
  event: unknown;
}

/**
 * The stores and indexes (the current version). Values are `unknown` on purpose: whatever is
 * read back is validated before use, since another release, another tab or a user with
 * devtools may have written it.
 */
export interface AgentDB extends DBSchema {
  /** `SessionSummary` by id; `byUpdate` is the newest-first paging order of `cursor.ts`. */
  sessions: { key: string; value: unknown; indexes: { byUpdate: [string, string] } };
  events: { key: [string, number]; value: EventRecord };
  /** `Memory` by id; `byNamespaceUpdate` lists one namespace in update order. */
  memories: { key: string; value: unknown; indexes: { byNamespaceUpdate: [string, string] } };
  /**
   * Writer fencing: the current writer epoch by session id, and under {@link EPOCH_COUNTER_KEY}
   * the highest epoch handed out for any session.
   */
  writers: { key: string | typeof EPOCH_COUNTER_KEY; value: unknown };
  /** `SessionDraft` by session id (out-of-line keys). */
  drafts: { key: string; value: unknown };
}

/** The key of the storage-wide epoch counter: a number, so never a session id (a string). */
export const EPOCH_COUNTER_KEY = 0;

/** The stores of {@link AgentDB}. */
export type StoreName = StoreNames<AgentDB>;

/** The transaction of a schema upgrade. */
export type UpgradeTransaction = IDBPTransaction<AgentDB, StoreName[], 'versionchange'>;
/** One schema step: upgrades a database at version `index` to version `index + 1`. */
export type Migration = (db: IDBPDatabase<AgentDB>, tx: UpgradeTransaction) => void;

// The upgrade transaction is typed for the current version; older versions had other indexes,
// so the steps below name them through this loosely typed view.
type AnyIndexStore = {
  createIndex(name: string, keyPath: string | string[]): unknown;
  deleteIndex(name: string): void;
};
const loose = (store: unknown) => store as AnyIndexStore;

/** Every schema step, oldest first; the database version is `MIGRATIONS.length`. */
export const MIGRATIONS: readonly Migration[] = [
  // v1: the three stores; memories found by namespace.
  (db) => {
    db.createObjectStore('sessions', { keyPath: 'id' });
    db.createObjectStore('events', { keyPath: ['sessionId', 'seq'] });
    loose(db.createObjectStore('memories', { keyPath: 'id' })).createIndex('namespace', 'namespace');
  },
  // v2: indexes for paging sessions newest first and memories by namespace and update time
  // (the latter replaces v1's namespace-only index).
  (_db, tx) => {
    loose(tx.objectStore('sessions')).createIndex('byUpdate', ['updatedAt', 'id']);
    const memories = loose(tx.objectStore('memories'));
    memories.createIndex('byNamespaceUpdate', ['namespace', 'updatedAt']);
    memories.deleteIndex('namespace');
  },
  // v3: writer epochs and drafts, each in a store of its own, so the summaries and events stay
  // as they were (out-of-line keys: the values are a plain number and a draft).
  (db) => {
    db.createObjectStore('writers');
    db.createObjectStore('drafts');
  },
];

/** The schema version this code reads and writes. */
export const DB_VERSION = MIGRATIONS.length;

/** Runs the steps from `oldVersion` up to `newVersion` inside the upgrade transaction. */
export function upgradeSchema(
  db: IDBPDatabase<AgentDB>,
  oldVersion: number,
  newVersion: number,
  tx: UpgradeTransaction,
): void {
  for (let version = oldVersion; version < newVersion; version++) MIGRATIONS[version]?.(db, tx);
}
