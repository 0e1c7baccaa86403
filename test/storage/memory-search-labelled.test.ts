/**
 * Ranking quality on a small labelled set: memories written the way extraction writes them
 * (most start with "The user"), and English, Chinese and Japanese queries, each with the
 * memories that answer it. This set chose the ranking: the kept one puts an answer first for
 * 41 of the 45 queries (the hand-written scoring it replaced: 39), and for every Chinese and
 * Japanese one. The misses are word forms a prefix does not reach ("merge" for "merging",
 * "allergy" for "allergic") and two questions whose answer ranks second or third.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { rankMemories, loadMemorySearch } from '../../src/storage/memory-search.js';

// MiniSearch loads on first use (the storages await it before a search).
beforeAll(loadMemorySearch);
import type { Memory } from '../../src/types.js';

const labelled: [id: string, content: string, tags: string[]][] = [
  ['en-editor', 'The user writes code in Neovim with a dark colour scheme.', ['editor', 'tools']],
  ['en-lang', 'The user prefers answers in British English.', ['language', 'style']],
  ['en-units', 'The user prefers metric units for distances and temperatures.', ['units']],
  ['en-home', 'The user lives in Lyon, France.', ['home']],
  ['en-job', 'The user works as a backend engineer at a logistics company.', ['work']],
  ['en-stack', "The user's main project is written in TypeScript on Node 20.", ['project']],
  ['en-tests', 'The user runs tests with Vitest and wants them green before every commit.', ['testing']],
  ['en-coffee', 'The user drinks black coffee and avoids sugar.', ['food']],
  ['en-allergy', 'The user is allergic to peanuts.', ['health', 'food']],
  ['en-meetings', 'The user has team meetings every Monday at 9 am.', ['schedule']],
  ['en-brief', 'The user wants short answers without long introductions.', ['style']],
  ['en-git', 'The user squashes commits before merging pull requests.', ['git']],
  ['en-cat', 'The user has a cat named Miso.', ['pets']],
  ['en-run', 'The user goes running on weekends and is training for a half marathon.', ['sport']],
  ['en-os', 'The user works on a MacBook with macOS and uses the fish shell.', ['tools']],
  ['en-db', "The user's project stores data in PostgreSQL 16.", ['project', 'database']],
  ['en-tz', 'The user is in the Central European time zone.', ['schedule']],
  ['en-vegetarian', 'The user is vegetarian and cooks at home most evenings.', ['food']],
  ['zh-coffee', '用户喜欢喝咖啡，不加糖。', ['饮食']],
  ['zh-tea', '用户每天下午喝茶。', ['饮食']],
  ['zh-city', '用户住在上海浦东。', ['住址']],
  ['zh-job', '用户是一名前端工程师，主要使用React。', ['工作']],
  ['zh-lang', '用户希望用简体中文回答问题。', ['语言']],
  ['zh-kid', '用户有一个五岁的女儿。', ['家庭']],
  ['zh-travel', '用户计划明年去日本旅行。', ['旅行']],
  ['zh-allergy', '用户对海鲜过敏。', ['健康']],
  ['zh-exercise', '用户每周去健身房锻炼三次。', ['运动']],
  ['ja-home', 'ユーザーは東京に住んでいる。', ['住所']],
  ['ja-lang', 'ユーザーは敬語を使わない短い回答を好む。', ['文体']],
  ['ja-work', 'ユーザーはゲーム会社でデザイナーとして働いている。', ['仕事']],
  ['ja-food', 'ユーザーはラーメンが大好きで、辛い食べ物は苦手だ。', ['食べ物']],
  ['ja-pc', 'ユーザーはWindowsのノートパソコンを使っている。', ['道具']],
  ['ja-hobby', 'ユーザーの趣味は写真撮影と登山だ。', ['趣味']],
  ['ja-study', 'ユーザーは英語の資格試験の勉強をしている。', ['勉強']],
];

/** Each query with the memories that answer it. */
const queries: { q: string; want: string[] }[] = [
  // English, keyword style
  { q: 'editor', want: ['en-editor'] },
  { q: 'coffee', want: ['en-coffee'] },
  { q: 'peanuts', want: ['en-allergy'] },
  { q: 'TypeScript project', want: ['en-stack', 'en-db'] },
  { q: 'database', want: ['en-db'] },
  { q: 'cat', want: ['en-cat'] },
  { q: 'shell', want: ['en-os'] },
  { q: 'Monday', want: ['en-meetings'] },
  // English, natural language (everything says "The user ...")
  { q: 'Which editor does the user use?', want: ['en-editor'] },
  { q: 'Where does the user live?', want: ['en-home'] },
  { q: 'what does the user drink', want: ['en-coffee'] },
  { q: 'Is the user allergic to anything?', want: ['en-allergy'] },
  { q: 'How does the user run tests?', want: ['en-tests'] },
  { q: 'what language should answers be in', want: ['en-lang', 'en-brief'] },
  { q: 'when are the team meetings', want: ['en-meetings'] },
  { q: "the user's pet", want: ['en-cat'] },
  { q: 'marathon training', want: ['en-run'] },
  { q: 'what food should I avoid cooking for the user', want: ['en-allergy', 'en-vegetarian'] },
  // English, word forms
  { q: 'meeting', want: ['en-meetings'] },
  { q: 'commit', want: ['en-git', 'en-tests'] },
  { q: 'merge', want: ['en-git'] },
  { q: 'allergy', want: ['en-allergy', 'zh-allergy'] },
  // Chinese
  { q: '咖啡', want: ['zh-coffee'] },
  { q: '茶', want: ['zh-tea'] },
  { q: '用户住在哪里', want: ['zh-city'] },
  { q: '上海', want: ['zh-city'] },
  { q: '工程师', want: ['zh-job'] },
  { q: '用户喜欢喝什么', want: ['zh-coffee', 'zh-tea'] },
  { q: '过敏', want: ['zh-allergy'] },
  { q: '健身', want: ['zh-exercise'] },
  { q: '女儿几岁', want: ['zh-kid'] },
  { q: '旅行计划', want: ['zh-travel'] },
  { q: '用中文回答', want: ['zh-lang'] },
  // Japanese
  { q: '東京', want: ['ja-home'] },
  { q: 'ユーザーはどこに住んでいる', want: ['ja-home'] },
  { q: 'ラーメン', want: ['ja-food'] },
  { q: '辛い食べ物', want: ['ja-food'] },
  { q: '仕事', want: ['ja-work'] },
  { q: 'デザイナー', want: ['ja-work'] },
  { q: 'パソコン', want: ['ja-pc'] },
  { q: '趣味は何', want: ['ja-hobby'] },
  { q: '登山', want: ['ja-hobby'] },
  { q: '英語の勉強', want: ['ja-study'] },
  // mixed
  { q: 'React', want: ['zh-job'] },
  { q: 'Windows', want: ['ja-pc'] },
];

const memories: Memory[] = labelled.map(([id, content, tags], i) => ({
  id,
  namespace: 'ns',
  content,
  tags,
  createdAt: '2024-01-01T00:00:00.000Z',
  updatedAt: new Date(Date.UTC(2024, 0, 1) + i * 1000).toISOString(),
}));
const firstOf = (query: string) => rankMemories(memories, query, 5)[0]?.id;
const isCjk = (query: string) => /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u.test(query);

describe('ranking on the labelled set', () => {
  it('puts an answer first for at least 41 of the 45 queries', () => {
    const hits = queries.filter(({ q, want }) => want.includes(firstOf(q) ?? ''));
    expect(queries).toHaveLength(45);
    expect(hits.length).toBeGreaterThanOrEqual(41);
  });

  it.each(queries.filter(({ q }) => isCjk(q)))('finds an answer to $q first', ({ q, want }) => {
    expect(want).toContain(firstOf(q));
  });
});
