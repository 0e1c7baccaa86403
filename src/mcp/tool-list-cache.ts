/**
 * Where servers' tool lists are kept between page loads: IndexedDB when the page has it (its own
 * database, `youyou-agent-mcp`), a map of this JavaScript realm otherwise. A cache that fails
 * (a private window, a blocked upgrade) is a miss, never an error.
 * @module
 */
import type { McpToolInfo } from './types.js';

/** One kept list. */
export interface CachedToolList {
  tools: McpToolInfo[];
  /** `Date.now()` when it was listed. */
  fetchedAt: number;
}

const DB_NAME = 'youyou-agent-mcp';
const STORE = 'tool-lists';
const memory = new Map<string, CachedToolList>();
const databases = new WeakMap<IDBFactory, Promise<IDBDatabase>>();

function settled<T>(request: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

function database(factory: IDBFactory): Promise<IDBDatabase> {
  let db = databases.get(factory);
  if (!db) {
    const request = factory.open(DB_NAME, 1);
    request.onupgradeneeded = () => request.result.createObjectStore(STORE);
    db = settled(request).then((opened) => {
      // Another tab upgrading the database: let it, and open again on next use.
      opened.onversionchange = () => {
        opened.close();
        databases.delete(factory);
      };
      return opened;
    });
    db.catch(() => databases.delete(factory));
    databases.set(factory, db);
  }
  return db;
}

const factory = () => (globalThis as { indexedDB?: IDBFactory }).indexedDB;

async function inStore<T>(
  idb: IDBFactory,
  mode: IDBTransactionMode,
  use: (store: IDBObjectStore) => IDBRequest<T>,
) {
  const db = await database(idb);
  return settled(use(db.transaction(STORE, mode).objectStore(STORE)));
}

/** The kept list of `key`, if any. */
export async function readToolList(key: string): Promise<CachedToolList | undefined> {
  const idb = factory();
  if (!idb) return memory.get(key);
  try {
    return await inStore(
      idb,
      'readonly',
      (store) => store.get(key) as IDBRequest<CachedToolList | undefined>,
    );
  } catch {
    return undefined;
  }
}

/** Keeps `list` as `key`'s, or drops `key`'s with `undefined`. */
export async function writeToolList(key: string, list: CachedToolList | undefined): Promise<void> {
  const idb = factory();
  if (!idb) {
    if (list) memory.set(key, list);
    else memory.delete(key);
    return;
  }
  try {
    await inStore(
      idb,
      'readwrite',
      (store) => (list ? store.put(list, key) : store.delete(key)) as IDBRequest<unknown>,
    );
  } catch {
    // Not kept: the next page load lists again.
  }
}
