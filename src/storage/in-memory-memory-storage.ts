/**
 * {@link InMemoryMemoryStorage}: long-term memories kept in a `Map`, for Node, tests, and apps
 * that do not need memories to outlive the process.
 * @module
 */
import * as Errors from '../error-constructors.js';
import type { MemoryStorage } from '../ports/storage.js';
import { MemorySchema } from '../types.js';
import type { Memory } from '../types.js';
import { parseInput } from '../validate.js';
import { copyData } from '../copy-data.js';
import { loadMemorySearch, MemoryIndex, rankMemories } from './memory-search.js';

/**
 * A {@link MemoryStorage} in memory. Meets the shared storage contract: memories are validated
 * (`INVALID_INPUT` naming the failing path), stored as copies, and searched with the shared
 * keyword ranking (`rankMemories`).
 *
 * @example
 * const memories = new InMemoryMemoryStorage();
 * await memories.save({ id: 'm1', namespace: 'alice', content: 'Prefers metric units',
 *   createdAt: new Date().toISOString(), updatedAt: new Date().toISOString() });
 * await memories.search('alice', 'units', 5); // [{ id: 'm1', ... }]
 */
export class InMemoryMemoryStorage implements MemoryStorage {
  readonly #memories = new Map<string, Memory>();
  /** One search index per namespace, kept between searches. */
  readonly #indexes = new Map<string, MemoryIndex>();

  /** The best `limit` keyword matches of `query` in `namespace`; newest first for a blank query. */
  async search(namespace: string, query: string, limit: number): Promise<Memory[]> {
    if (typeof namespace !== 'string') throw Errors.invalidInput('namespace must be a string');
    if (typeof query !== 'string') throw Errors.invalidInput('query must be a string');
    const inNamespace = [...this.#memories.values()].filter((m) => m.namespace === namespace);
    await loadMemorySearch();
    let index = this.#indexes.get(namespace);
    if (!index) this.#indexes.set(namespace, (index = new MemoryIndex()));
    return copyData(rankMemories(inNamespace, query, limit, index));
  }

  /** Inserts `memory`, or replaces the one with the same `id`. */
  async save(memory: Memory): Promise<void> {
    const valid = copyData(parseInput(MemorySchema, memory, 'memory'));
    this.#memories.set(valid.id, valid);
  }

  /** Removes the memory with `id`; a no-op for an unknown id. */
  async delete(id: string): Promise<void> {
    if (typeof id !== 'string') throw Errors.invalidInput('id must be a string');
    this.#memories.delete(id);
  }
}
