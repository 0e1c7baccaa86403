import { describe, expect, it } from 'vitest';
import { documentTermsOf, queryTermsOf, rankMemories } from '../../src/storage/memory-search.js';
import type { Memory } from '../../src/types.js';
import { expectAgentError } from '../support/errors.js';

const at = (seconds: number) => new Date(Date.UTC(2024, 0, 1) + seconds * 1000).toISOString();
const memory = (id: string, content: string, seconds = 0, tags?: string[]): Memory => ({
  id,
  namespace: 'ns',
  content,
  createdAt: at(0),
  updatedAt: at(seconds),
  ...(tags ? { tags } : {}),
});
const rank = (memories: Memory[], query: string, limit = 10) =>
  rankMemories(memories, query, limit).map((m) => m.id);

describe('terms', () => {
  it('are lower-cased runs of Unicode letters and digits', () => {
    expect(queryTermsOf('Hello, WORLD! café-42 naïve')).toEqual(['hello', 'world', 'café', '42', 'naïve']);
  });

  it('split unspaced Han and Kana runs: pairs for a query, characters and pairs for a memory', () => {
    expect(queryTermsOf('喜欢咖啡')).toEqual(['喜欢', '欢咖', '咖啡']);
    expect(queryTermsOf('茶')).toEqual(['茶']);
    expect(documentTermsOf('喝茶')).toEqual(['喝', '茶', '喝茶']);
    expect(queryTermsOf('gpt4の使い方')).toEqual(['gpt4', 'の使', '使い', 'い方']);
  });
});

describe('rankMemories', () => {
  it('ranks by distinct terms, then frequency, then newer updatedAt, then id', () => {
    const memories = [
      memory('one-term-often', 'cat cat cat', 1),
      memory('two-terms', 'a cat and a dog', 0),
      memory('one-term-old', 'dog', 2),
      memory('one-term-new', 'dog', 3),
      memory('b-same', 'dog', 3),
      memory('none', 'bird', 9),
    ];
    expect(rank(memories, 'dog cat')).toEqual([
      'two-terms',
      'one-term-often',
      'b-same',
      'one-term-new',
      'one-term-old',
    ]);
  });

  it('counts a repeated query term once', () => {
    const memories = [memory('twice', 'tea tea', 0), memory('both', 'tea milk', 0)];
    expect(rank(memories, 'tea tea milk')).toEqual(['both', 'twice']);
  });

  it('matches tags as well as content', () => {
    expect(rank([memory('t', 'nothing here', 0, ['Travel']), memory('x', 'other', 1)], 'travel')).toEqual([
      't',
    ]);
  });

  it('returns the newest first for a query without terms, by instant', () => {
    const memories = [
      { ...memory('offset', 'x'), updatedAt: '2024-01-01T10:30:00+02:00' }, // 08:30Z
      { ...memory('utc', 'y'), updatedAt: '2024-01-01T09:00:00Z' },
    ];
    expect(rank(memories, '  ... ')).toEqual(['utc', 'offset']);
  });

  it('caps at limit and leaves its input untouched', () => {
    const memories = [memory('a', 'x', 1), memory('b', 'x', 2), memory('c', 'x', 3)];
    const copy = [...memories];
    expect(rank(memories, 'x', 2)).toEqual(['c', 'b']);
    expect(memories).toEqual(copy);
  });

  it('rejects a limit that is not a positive integer', async () => {
    for (const limit of [0, -1, 1.5, Number.NaN]) {
      await expectAgentError(() => rankMemories([], 'x', limit), 'INVALID_INPUT');
    }
  });
});
