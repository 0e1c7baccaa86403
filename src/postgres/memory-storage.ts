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
import { PostgresRunner, resolvePostgresOptions, storableKey, type PostgresOptions } from './options.js';
import { malformed, parseJson } from './session-rows.js';

/** Most memories of one namespace a search ranks: the newest ones. */
export const MAX_RANKED = 20_000;
/** Namespaces whose search index is kept between searches (the least recently searched goes first). */
const KEPT_INDEXES = 32;

const KeySchema = storableKey('value', { allowEmpty: false, max: 1024 });
const StorableMemorySchema = z.extend(MemorySchema, { id: KeySchema, namespace: KeySchema });

/**
 * A {@link MemoryStorage} in PostgreSQL. `search` reads the namespace's memories (the newest
 * 20 000 at most) and ranks them in process with the shared ranking (BM25 over words, prefixes
 * and CJK terms, as `InMemoryMemoryStorage` does), keeping each namespace's index between
 * searches so only changed memories are re-read into it.
 *
 * @example
 * const memories = new PostgresMemoryStorage({ sql: pgClient(pool) });
 * await memories.save({ id: 'm1', namespace: 'alice', content: 'Prefers metric units',
 *   createdAt: new Date().toISOString(), updatedAt: new Date().toISOString() });
 * await memories.search('alice', 'units', 5); // [{ id: 'm1', ... }]
 */
export class PostgresMemoryStorage implements MemoryStorage {
  readonly #runner: PostgresRunner;
  readonly #indexes = new Map<string, MemoryIndex>();

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
    const { rows } = await this.#runner.query<{ id: unknown; body: unknown }>(
      'reading memories',
      `SELECT id, body FROM ${this.#runner.table('memories')} WHERE namespace = $1
       ORDER BY updated_at DESC, id LIMIT $2`,
      [namespace, MAX_RANKED],
    );
    const memories = rows.map((row) => {
      const parsed = z.safeParse(MemorySchema, parseJson(row.body));
      if (!parsed.success || parsed.data.namespace !== namespace)
        throw malformed(`memory '${String(row.id)}'`);
      return parsed.data;
    });
    await loadMemorySearch();
    return rankMemories(memories, query, limit, this.#indexOf(namespace));
  }

  /** Inserts `memory`, or replaces the one with the same `id`. */
  async save(memory: Memory): Promise<void> {
    const valid = parseInput(StorableMemorySchema, memory, 'memory');
    await this.#runner.query(
      `saving memory '${valid.id}'`,
      `INSERT INTO ${this.#runner.table('memories')} (id, namespace, updated_at, body) VALUES ($1, $2, $3, $4)
       ON CONFLICT (id) DO UPDATE SET namespace = EXCLUDED.namespace, updated_at = EXCLUDED.updated_at, body = EXCLUDED.body`,
      [valid.id, valid.namespace, normalizeTimestamp(valid.updatedAt), JSON.stringify(valid)],
    );
  }

  /** Removes the memory with `id`; a no-op for an unknown id. */
  async delete(id: string): Promise<void> {
    if (typeof id !== 'string') throw Errors.invalidInput('id must be a string');
    if (!z.safeParse(KeySchema, id).success) return;
    await this.#runner.query(
      `deleting memory '${id}'`,
      `DELETE FROM ${this.#runner.table('memories')} WHERE id = $1`,
      [id],
    );
  }

  #indexOf(namespace: string): MemoryIndex {
    let index = this.#indexes.get(namespace);
    if (index) this.#indexes.delete(namespace);
    else index = new MemoryIndex();
    this.#indexes.set(namespace, index);
    if (this.#indexes.size > KEPT_INDEXES) this.#indexes.delete(this.#indexes.keys().next().value!);
    return index;
  }
}
