/**
 * The contract every {@link MemoryStorage} must meet, written once and run against each
 * implementation (vitest in Node, and a real browser page). Each case takes a fresh, empty
 * storage and rejects (throws) when the storage breaks a rule.
 * @module
 */
import type { MemoryStorage } from '../../ports/storage.js';
import type { Memory } from '../../types.js';
import { check, type ContractCase } from './check.js';

export type { ContractCase } from './check.js';

const BASE_TIME = Date.UTC(2024, 0, 1, 9, 0, 0);

function at(seconds: number): string {
  return new Date(BASE_TIME + seconds * 1000).toISOString();
}

/** A memory in namespace `ns`, updated `seconds` after the base time. */
function memory(id: string, content: string, seconds: number, extra: Partial<Memory> = {}): Memory {
  return { id, namespace: 'ns', content, createdAt: at(0), updatedAt: at(seconds), ...extra };
}

function ids(memories: readonly Memory[]): string[] {
  return memories.map((item) => item.id);
}

async function saveAll(storage: MemoryStorage, memories: Memory[]): Promise<void> {
  for (const item of memories) await storage.save(item);
}

/** The cases of the {@link MemoryStorage} contract. */
export const memoryStorageContract: ContractCase<MemoryStorage>[] = [
  {
    name: 'a saved memory is found whole, and saving the same id replaces it',
    async run(storage) {
      check.deepEqual(await storage.search('ns', '', 10), [], 'empty storage');
      const first = memory('m1', 'The user likes green tea', 1, {
        sourceSessionId: 'session-1',
        tags: ['drinks'],
      });
      await storage.save(first);
      check.deepEqual(await storage.search('ns', 'tea', 10), [first], 'found');

      const replacement = memory('m1', 'The user switched to coffee', 2);
      await storage.save(replacement);
      check.deepEqual(await storage.search('ns', '', 10), [replacement], 'after replacement');
      check.deepEqual(await storage.search('ns', 'tea', 10), [], 'old content is gone');
      check.deepEqual(await storage.search('ns', 'coffee', 10), [replacement], 'new content');
    },
  },
  {
    name: 'search looks only within the namespace',
    async run(storage) {
      await saveAll(storage, [
        memory('a1', 'likes hiking', 1, { namespace: 'alice' }),
        memory('b1', 'likes hiking too', 2, { namespace: 'bob' }),
        memory('b2', 'likes chess', 3, { namespace: 'bob' }),
      ]);
      check.deepEqual(ids(await storage.search('alice', 'hiking', 10)), ['a1'], 'alice, hiking');
      check.deepEqual(ids(await storage.search('alice', '', 10)), ['a1'], 'alice, all');
      check.deepEqual(ids(await storage.search('bob', '', 10)), ['b2', 'b1'], 'bob, all');
      check.deepEqual(await storage.search('carol', '', 10), [], 'unknown namespace');
      check.deepEqual(await storage.search('ali', 'hiking', 10), [], 'namespace is not a prefix match');
    },
  },
  {
    name: 'ranks the best keyword match first, then newest; non-matches left out',
    async run(storage) {
      await saveAll(storage, [
        memory('both', 'Coffee every morning', 1),
        memory('frequent', 'coffee, coffee and more COFFEE', 2),
        memory('once', 'a quiet morning run', 3),
        memory('unrelated', 'prefers tea in the evening', 9),
        memory('older-tie', 'morning walks', 4),
        memory('newer-tie', 'morning swims', 5),
      ]);
      check.deepEqual(
        ids(await storage.search('ns', 'MORNING coffee', 10)),
        ['both', 'frequent', 'newer-tie', 'older-tie', 'once'],
        'ranking',
      );
      check.deepEqual(ids(await storage.search('ns', 'nothing matches', 10)), [], 'no match');
    },
  },
  {
    name: 'an empty or blank query returns the newest first',
    async run(storage) {
      await saveAll(storage, [
        memory('old', 'one', 1),
        memory('newest', 'two', 3),
        memory('middle', 'three', 2),
      ]);
      for (const query of ['', '   ', '?!']) {
        check.deepEqual(
          ids(await storage.search('ns', query, 10)),
          ['newest', 'middle', 'old'],
          `query '${query}'`,
        );
      }
    },
  },
  {
    name: 'limit caps the results and must be a positive integer',
    async run(storage) {
      await saveAll(storage, [
        memory('m1', 'apple pie', 1),
        memory('m2', 'apple juice', 2),
        memory('m3', 'apple tree', 3),
      ]);
      check.deepEqual(ids(await storage.search('ns', 'apple', 2)), ['m3', 'm2'], 'matches, limit 2');
      check.deepEqual(ids(await storage.search('ns', '', 1)), ['m3'], 'newest, limit 1');
      for (const limit of [0, -1, 2.5, Number.NaN, '2']) {
        await check.rejects(
          () => storage.search('ns', 'apple', limit as number),
          'INVALID_INPUT',
          `limit ${String(limit)}`,
        );
      }
    },
  },
  {
    name: 'delete removes a memory and is idempotent',
    async run(storage) {
      await saveAll(storage, [memory('m1', 'keep', 1), memory('m2', 'remove', 2)]);
      await storage.delete('m2');
      check.deepEqual(ids(await storage.search('ns', '', 10)), ['m1'], 'after delete');
      check.deepEqual(await storage.search('ns', 'remove', 10), [], 'deleted memory not found');
      await storage.delete('m2');
      await storage.delete('never-existed');
      check.deepEqual(ids(await storage.search('ns', '', 10)), ['m1'], 'after repeated delete');
    },
  },
  {
    name: 'an invalid memory is rejected with INVALID_INPUT and nothing is stored',
    async run(storage) {
      const valid = memory('m1', 'valid', 1);
      const invalid: unknown[] = [
        null,
        { ...valid, id: '' },
        { ...valid, namespace: '' },
        { ...valid, content: 42 },
        { ...valid, updatedAt: 'yesterday' },
        { ...valid, tags: 'not-a-list' },
        { ...valid, tags: [1] },
        { ...valid, surprise: true },
        (({ namespace: _namespace, ...rest }) => rest)(valid),
      ];
      for (const [index, value] of invalid.entries()) {
        await check.rejects(() => storage.save(value as Memory), 'INVALID_INPUT', `invalid memory #${index}`);
      }
      check.deepEqual(await storage.search('ns', '', 10), [], 'nothing stored');
    },
  },
  {
    name: 'tags are searchable',
    async run(storage) {
      await saveAll(storage, [
        memory('tagged', 'prefers short answers', 1, { tags: ['Style', 'tone'] }),
        memory('plain', 'lives in Oslo', 2),
      ]);
      check.deepEqual(ids(await storage.search('ns', 'style', 10)), ['tagged'], 'by tag');
      check.deepEqual(
        ids(await storage.search('ns', 'tone oslo', 10)),
        ['plain', 'tagged'],
        'tag and content',
      );
    },
  },
  {
    name: 'words inside unspaced Chinese text are found',
    async run(storage) {
      await saveAll(storage, [memory('coffee', '用户喜欢喝咖啡', 1), memory('tea', '用户每天喝茶', 2)]);
      check.deepEqual(ids(await storage.search('ns', '咖啡', 10)), ['coffee'], 'two characters');
      check.deepEqual(ids(await storage.search('ns', '茶', 10)), ['tea'], 'one character');
      check.deepEqual(ids(await storage.search('ns', '用户', 10)), ['tea', 'coffee'], 'shared word');
    },
  },
  {
    name: 'stored memories are immune to later mutation of saved and returned objects',
    async run(storage) {
      const saved = memory('m1', 'original', 1, { tags: ['a'] });
      await storage.save(saved);
      saved.content = 'changed';
      saved.tags!.push('b');
      const expected = memory('m1', 'original', 1, { tags: ['a'] });
      check.deepEqual(await storage.search('ns', '', 10), [expected], 'after mutating the saved memory');

      const [found] = await storage.search('ns', 'original', 10);
      check.ok(found !== undefined, 'memory found');
      found.content = 'changed';
      found.tags!.push('c');
      check.deepEqual(await storage.search('ns', '', 10), [expected], 'after mutating a result');
    },
  },
];
