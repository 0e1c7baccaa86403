import { beforeAll, describe, expect, it } from 'vitest';
import { AgentError } from '../../src/errors.js';
import {
  MemoryIndex,
  documentTermsOf,
  queryTermsOf,
  rankMemories,
  loadMemorySearch,
} from '../../src/storage/memory-search.js';

// MiniSearch loads on first use (the storages await it before a search).
beforeAll(loadMemorySearch);
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
  it('are lower-cased runs of Unicode letters and digits, full-width forms folded', () => {
    expect(queryTermsOf("Hello, WORLD! café-42 naïve user's")).toEqual([
      'hello',
      'world',
      'café',
      '42',
      'naïve',
      'user',
      's',
    ]);
    expect(queryTermsOf('ＧＰＴ４')).toEqual(['gpt4']);
  });

  it('cut unspaced text into words, and Han and Kana also into pairs (a memory: characters too)', () => {
    // Where the segmenter cuts depends on its dictionary; the pairs and characters do not.
    expect(queryTermsOf('喜欢咖啡')).toEqual(expect.arrayContaining(['喜欢', '欢咖', '咖啡']));
    expect(queryTermsOf('喜欢咖啡')).not.toContain('咖');
    expect(queryTermsOf('茶')).toEqual(['茶']);
    expect(documentTermsOf('喝茶')).toEqual(expect.arrayContaining(['喝', '茶', '喝茶']));
    expect(queryTermsOf('gpt4の使い方')).toEqual(expect.arrayContaining(['gpt4', 'の使', '使い', 'い方']));
    expect(queryTermsOf('ผมชอบกาแฟ')).toEqual(expect.arrayContaining(['ชอบ', 'กาแฟ']));
  });

  it('of a query are distinct; of a memory repeat, so frequency counts', () => {
    expect(queryTermsOf('tea Tea TEA')).toEqual(['tea']);
    expect(documentTermsOf('tea Tea TEA')).toEqual(['tea', 'tea', 'tea']);
  });
});

describe('rankMemories', () => {
  it('ranks more matched terms, then more frequent ones first; ties go to newer updatedAt, then id', () => {
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

  it('weighs a rare term above one that every memory has', () => {
    const memories = [
      memory('editor', 'The user edits code in Neovim, their editor of choice.', 0),
      memory('units', 'The user wants to use metric units; the user insists.', 1),
      memory('home', 'The user lives in Lyon.', 2),
    ];
    expect(rank(memories, 'Which editor does the user use?')[0]).toBe('editor');
  });

  it('lets a term of three or more letters match the words it begins, below a whole-word match', () => {
    const memories = [
      memory('plural', 'team meetings every Monday', 1),
      memory('exact', 'a meeting with the bank', 0),
      memory('other', 'meat for dinner', 2),
    ];
    expect(rank(memories, 'meeting')).toEqual(['exact', 'plural']);
    expect(rank(memories, 'me')).toEqual([]);
  });

  it('finds words inside unspaced Chinese and Japanese text', () => {
    const memories = [
      memory('coffee', '用户喜欢喝咖啡，不加糖。', 0),
      memory('tea', '用户每天下午喝茶。', 1),
      memory('shanghai', '用户住在上海浦东。', 2),
      memory('tokyo', 'ユーザーは東京に住んでいる。', 3),
      memory('ramen', 'ユーザーはラーメンが大好きで、辛い食べ物は苦手だ。', 4),
      memory('english', 'The user drinks black coffee.', 5),
    ];
    expect(rank(memories, '咖啡')).toEqual(['coffee']);
    expect(rank(memories, '茶')).toEqual(['tea']);
    expect(rank(memories, '用户住在哪里')[0]).toBe('shanghai');
    expect(rank(memories, '東京')).toEqual(['tokyo']);
    expect(rank(memories, 'ユーザーはどこに住んでいる')[0]).toBe('tokyo');
    expect(rank(memories, '辛い食べ物')[0]).toBe('ramen');
    expect(rank(memories, 'coffee')).toEqual(['english']);
  });

  it('answers with a kept index as with a fresh one, as memories are added, changed and removed', () => {
    const index = new MemoryIndex();
    const queries = ['tea', 'coffee milk', 'morning', '咖啡', ''];
    const check = (memories: Memory[]) => {
      for (const query of queries) {
        expect(rankMemories(memories, query, 10, index)).toEqual(rankMemories(memories, query, 10));
      }
    };
    let memories = [
      memory('a', 'tea in the morning', 1),
      memory('b', 'coffee with milk', 2),
      memory('c', '用户喜欢喝咖啡', 3),
    ];
    check(memories);
    memories = [...memories, memory('d', 'milk tea, every morning', 4)];
    check(memories);
    memories = memories.map((m) =>
      m.id === 'a' ? { ...m, content: 'coffee, no tea any more', updatedAt: at(5) } : m,
    );
    check(memories);
    memories = memories.filter((m) => m.id !== 'b');
    check(memories);
    expect(rank(memories, 'milk')).toEqual(['d']);
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
