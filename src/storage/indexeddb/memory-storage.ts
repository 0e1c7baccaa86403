/**
 * `MemoryStorage` on IndexedDB, in the same database as the sessions.
 * @module
 */
import * as z from 'zod/mini';
import { integer } from '../../vocabulary/checks.js';
import type { MemoryStorage } from '../../ports/storage.js';
import { MemorySchema, type Memory } from '../../types.js';
import { parseInput } from '../../validate.js';
import { loadMemorySearch, MemoryIndex, rankMemories } from '../memory-search.js';
import { Connection } from './connection.js';
import { resolveOptions, type IndexedDbStorageOptions, type ResolvedOptions } from './options.js';
import { readRecord } from './records.js';
import { toStorageError } from './storage-error.js';

const IdSchema = z.string();
const LimitSchema = integer().check(z.minimum(1));

/**
 * Long-term memories in IndexedDB: `search` reads one namespace through the
 * `[namespace, updatedAt]` index and ranks it by keyword match with the same ranking as every
 * other `MemoryStorage`. Corrupt records are reported through `options.onCorruptRecord` and
 * skipped; failures reject with `STORAGE_ERROR`.
 *
 * @example
 * const memories = new IndexedDbMemoryStorage({ dbName: 'my-app' });
 * await memories.save({ id: 'm1', namespace: 'alice', content: 'Prefers metric units',
 *   createdAt: new Date().toISOString(), updatedAt: new Date().toISOString() });
 * await memories.search('alice', 'units', 5); // → [that memory]
 */
export class IndexedDbMemoryStorage implements MemoryStorage {
  readonly #options: ResolvedOptions;
  readonly #connection: Connection;
  /** One search index per namespace, brought up to date with what each search reads. */
  readonly #indexes = new Map<string, MemoryIndex>();

  /** Touches nothing yet: the database opens on first use. Bad options → `INVALID_INPUT`. */
  constructor(options?: IndexedDbStorageOptions) {
    this.#options = resolveOptions(options);
    this.#connection = new Connection(this.#options);
  }

  /** The best `limit` keyword matches in `namespace`; an empty query gives the newest. */
  async search(namespace: string, query: string, limit: number): Promise<Memory[]> {
    const ns = parseInput(z.string(), namespace, 'namespace');
    const text = parseInput(z.string(), query, 'query');
    const max = parseInput(LimitSchema, limit, 'limit');
    const memories: Memory[] = [];
    try {
      const tx = await this.#connection.transaction(['memories'], 'readonly');
      const index = tx.objectStore('memories').index('byNamespaceUpdate');
      // Every `[ns, updatedAt]`: arrays sort after strings, so `[ns, []]` bounds the namespace.
      const range = IDBKeyRange.bound([ns], [ns, []]);
      const [values, keys] = await Promise.all([index.getAll(range), index.getAllKeys(range), tx.done]);
      values.forEach((value, i) => {
        const memory = readRecord(MemorySchema, value, 'memories', keys[i]!, this.#options.onCorruptRecord);
        if (memory) memories.push(memory);
      });
    } catch (error) {
      throw toStorageError('searching memories', error);
    }
    await loadMemorySearch();
    let index = this.#indexes.get(ns);
    if (!index) this.#indexes.set(ns, (index = new MemoryIndex()));
    return rankMemories(memories, text, max, index);
  }

  /** Inserts `memory`, or replaces the one with its `id`. */
  async save(memory: Memory): Promise<void> {
    const value = parseInput(MemorySchema, memory, 'memory');
    await this.#write('saving a memory', (store) => store.put(value));
  }

  /** Removes the memory with `id`; nothing happens if there is none. */
  async delete(id: string): Promise<void> {
    const key = parseInput(IdSchema, id, 'id');
    await this.#write('deleting a memory', (store) => store.delete(key));
  }

  /** Closes the database connection; a later call reopens it. */
  close(): Promise<void> {
    return this.#connection.close();
  }

  async #write(
    action: string,
    change: (store: {
      put(value: unknown): Promise<unknown>;
      delete(key: string): Promise<unknown>;
    }) => Promise<unknown>,
  ): Promise<void> {
    try {
      const tx = await this.#connection.transaction(['memories'], 'readwrite');
      await Promise.all([change(tx.objectStore('memories')), tx.done]);
    } catch (error) {
      throw toStorageError(action, error);
    }
  }
}
