/**
 * {@link PostgresMemoryStorage}: long-term memories in PostgreSQL, ranked in process with the
 * same keyword ranking as every other memory storage.
 * @module
 */
import * as z from 'zod/mini';
import { Errors } from '../errors.js';
import type { MemoryStorage } from '../ports/storage.js';
import { loadMemorySearch, MemoryIndex, rankMemories } from '../storage/memory-search.js';
import { normalizeTimestamp } from '../storage/session-summary.js';
import { MemorySchema, type Memory } from '../types.js';
import { parseInput } from '../validate.js';
import { copyData } from '../copy-data.js';
import { PostgresRunner, resolvePostgresOptions, storableKey, type PostgresOptions } from './options.js';
import { malformed, parseJson } from './session-rows.js';

/** Most memories of one namespace a search ranks: the newest ones. */
export const MAX_RANKED = 20_000;
/** Namespaces whose memories and index are kept between searches (the least recently searched go first). */
const KEPT_NAMESPACES = 32;

const KeySchema = storableKey('value', { allowEmpty: false, max: 1024 });
const StorableMemorySchema = z.extend(MemorySchema, { id: KeySchema, namespace: KeySchema });

/**
 * A {@link MemoryStorage} in PostgreSQL. `search` ranks the namespace's memories (the newest
 * 20 000 at most) in process with the shared ranking (BM25 over words, prefixes and CJK terms,
 * as `InMemoryMemoryStorage` does). It keeps each namespace's memories and index between
 * searches: a search reads every memory's version, and the bodies only of those saved since.
 *
 * @example
 * const memories = new PostgresMemoryStorage({ sql: pgClient(pool) });
 * await memories.save({ id: 'm1', namespace: 'alice', content: 'Prefers metric units',
 *   createdAt: new Date().toISOString(), updatedAt: new Date().toISOString() });
 * await memories.search('alice', 'units', 5); // [{ id: 'm1', ... }]
 */
export class PostgresMemoryStorage implements MemoryStorage {
  readonly #runner: PostgresRunner;
  readonly #caches = new Map<string, NamespaceCache>();

  constructor(options: PostgresOptions) {
    this.#runner = new PostgresRunner(resolvePostgresOptions(options, 'PostgresMemoryStorage options'));
  }

  /** The best `limit` keyword matches of `query` in `namespace`; newest first for a blank query. */
  async search(namespace: string, query: string, limit: number): Promise<Memory[]> {
    if (typeof namespace !== 'string') throw Errors.invalidInput('namespace must be a string');
    if (typeof query !== 'string') throw Errors.invalidInput('query must be a string');
    if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1) {
      throw Errors.invalidInput(`limit must be a positive integer, got ${String(limit)}`);
    }
    // A namespace PostgreSQL text cannot hold has no memories.
    if (!z.safeParse(KeySchema, namespace).success) return [];
    await loadMemorySearch();
    const memories = await this.#read(namespace);
    return rankMemories(memories, query, limit, this.#cacheOf(namespace).index);
  }

  /**
   * The namespace's memories, newest first: their versions are read, and only the bodies of
   * memories saved since the last search (a new version) are read and checked again.
   */
  async #read(namespace: string): Promise<Memory[]> {
    const cache = this.#cacheOf(namespace);
    const { rows } = await this.#runner.query<{ id: string; version: unknown }>(
      'reading memory versions',
      `SELECT id, version FROM ${this.#runner.table('memories')} WHERE namespace = $1
       ORDER BY updated_at DESC, id LIMIT $2`,
      [namespace, MAX_RANKED],
    );
    const stale = rows.filter((row) => cache.memories.get(row.id)?.version !== String(row.version));
    if (stale.length > 0) {
      const fresh = await this.#runner.query<{ id: unknown; version: unknown; body: unknown }>(
        'reading memories',
        `SELECT id, version, body FROM ${this.#runner.table('memories')} WHERE namespace = $1 AND id = ANY($2::text[])`,
        [namespace, stale.map((row) => row.id)],
      );
      for (const row of fresh.rows) {
        const parsed = z.safeParse(MemorySchema, parseJson(row.body));
        if (!parsed.success || parsed.data.namespace !== namespace)
          throw malformed(`memory '${String(row.id)}'`);
        cache.memories.set(parsed.data.id, { version: String(row.version), memory: parsed.data });
      }
    }
    const listed = new Set(rows.map((row) => row.id));
    for (const id of cache.memories.keys()) if (!listed.has(id)) cache.memories.delete(id);
    // A memory deleted between the two reads is simply left out.
    return rows.flatMap((row) => {
      const cached = cache.memories.get(row.id);
      return cached ? [copyData(cached.memory)] : [];
    });
  }

  /**
   * Inserts `memory`, or replaces the one with the same `id` in its namespace (ids are unique
   * per namespace: the same id in another namespace is another memory).
   */
  async save(memory: Memory): Promise<void> {
    const valid = parseInput(StorableMemorySchema, memory, 'memory');
    await this.#runner.query(
      `saving memory '${valid.id}'`,
      `INSERT INTO ${this.#runner.table('memories')} (id, namespace, updated_at, version, body)
       VALUES ($1, $2, $3, nextval('${this.#runner.table('memory_versions')}'), $4)
       ON CONFLICT (namespace, id) DO UPDATE SET updated_at = EXCLUDED.updated_at,
         version = EXCLUDED.version, body = EXCLUDED.body`,
      [valid.id, valid.namespace, normalizeTimestamp(valid.updatedAt), JSON.stringify(valid)],
    );
  }

  /** Removes the memories with `id` (in every namespace: the port names no namespace); a no-op for an unknown id. */
  async delete(id: string): Promise<void> {
    if (typeof id !== 'string') throw Errors.invalidInput('id must be a string');
    if (!z.safeParse(KeySchema, id).success) return;
    await this.#runner.query(
      `deleting memory '${id}'`,
      `DELETE FROM ${this.#runner.table('memories')} WHERE id = $1`,
      [id],
    );
  }

  /** The namespace's cache (its memories by id and its search index), most recently used last. */
  #cacheOf(namespace: string): NamespaceCache {
    let cache = this.#caches.get(namespace);
    if (cache) this.#caches.delete(namespace);
    else cache = { memories: new Map(), index: new MemoryIndex() };
    this.#caches.set(namespace, cache);
    if (this.#caches.size > KEPT_NAMESPACES) this.#caches.delete(this.#caches.keys().next().value!);
    return cache;
  }
}

/** What a search keeps of a namespace: each memory with its stored version, and the index. */
interface NamespaceCache {
  memories: Map<string, { version: string; memory: Memory }>;
  index: MemoryIndex;
}
