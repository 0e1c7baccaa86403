/**
 * Keyword ranking of memories, shared by every {@link MemoryStorage} so they all answer a
 * search the same way: MiniSearch's BM25 over terms cut by {@link documentTermsOf} and
 * {@link queryTermsOf}.
 *
 * Terms are lower-cased (after NFKC, so full-width letters and digits match their ASCII forms)
 * runs of Unicode letters, digits and marks. Scripts written without spaces (Han, Hiragana,
 * Katakana, Thai, Lao, Khmer, Myanmar) are cut into words by `Intl.Segmenter`. Han and Kana also
 * get every pair of neighbouring characters as terms, and a memory every single character, so a
 * search does not depend on where the segmenter cut: `咖啡` finds `我喜欢喝咖啡`, and `茶` finds
 * `每天喝茶` although the segmenter reads `喝茶` as one word.
 * @module
 */
import type MiniSearch from 'minisearch';
import * as Errors from '../error-constructors.js';
import type { Memory } from '../types.js';

const WORD = /[\p{L}\p{N}\p{M}]+/gu;
/** Scripts written without spaces between words: the segmenter finds their words. */
const UNSPACED =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;
/** Han and Kana runs (with the long-vowel mark), which also get characters and pairs as terms. */
const CJK_RUN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}ー]+/gu;
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u;
/** A query term this long or longer (not Han or Kana) also matches the words it begins. */
const PREFIX_MIN_LENGTH = 3;
/**
 * Scores are compared at this many significant digits, so float noise from an index built up
 * over time cannot reorder two memories that a fresh index scores alike.
 */
const SCORE_DIGITS = 10;

let segmenter: Intl.Segmenter | undefined;

let miniSearch: typeof MiniSearch | undefined;
let loading: Promise<typeof MiniSearch> | undefined;

/**
 * Loads MiniSearch, once: the storages call this before their first search, so an app (or a
 * Node process) that never searches memories neither loads nor, with a bundler that splits
 * code, downloads it.
 */
export async function loadMemorySearch(): Promise<void> {
  if (miniSearch) return;
  loading ??= import('minisearch').then(
    (module) => module.default,
    (error: unknown) => {
      // A chunk that failed to download may come next time.
      loading = undefined;
      throw Errors.storage('the memory search module (minisearch) could not be loaded', error);
    },
  );
  miniSearch = await loading;
}

interface IndexedMemory {
  id: string;
  text: string;
}

/**
 * A search index kept in step with the memories it ranks. {@link rankMemories} given the same
 * index each time only re-reads the memories whose text changed since the last call, instead of
 * cutting every memory into terms again; the answer is the same as with a fresh index.
 *
 * @example
 * await loadMemorySearch();
 * const index = new MemoryIndex();
 * rankMemories(memories, 'coffee', 5, index); // builds the index
 * rankMemories(memories, 'tea', 5, index); // reuses it
 */
export class MemoryIndex {
  readonly #search: MiniSearch<IndexedMemory>;
  readonly #indexed = new Map<string, IndexedMemory>();

  /** Needs {@link loadMemorySearch} to have settled. */
  constructor() {
    if (!miniSearch) throw Errors.internal('a memory index was made before loadMemorySearch() settled');
    this.#search = new miniSearch<IndexedMemory>({
      fields: ['text'],
      tokenize: documentTermsOf,
      processTerm: (term) => term,
      searchOptions: {
        tokenize: queryTermsOf,
        prefix: (term) => term.length >= PREFIX_MIN_LENGTH && !CJK.test(term),
      },
    });
  }

  /** Makes the index hold exactly `memories` (the first of a repeated id). */
  sync(memories: readonly Memory[]): Map<string, Memory> {
    const byId = new Map<string, Memory>();
    for (const memory of memories) {
      if (byId.has(memory.id)) continue;
      byId.set(memory.id, memory);
      const text = searchableText(memory);
      const indexed = this.#indexed.get(memory.id);
      if (indexed?.text === text) continue;
      if (indexed) this.#search.remove(indexed);
      const entry = { id: memory.id, text };
      this.#search.add(entry);
      this.#indexed.set(memory.id, entry);
    }
    for (const [id, indexed] of this.#indexed) {
      if (byId.has(id)) continue;
      this.#search.remove(indexed);
      this.#indexed.delete(id);
    }
    return byId;
  }

  /** Ids and scores of the indexed memories matching `query`, in no particular order. */
  match(query: string): { id: string; score: number }[] {
    return this.#search.search(query).map((result) => ({ id: result.id as string, score: result.score }));
  }
}

/**
 * The best `limit` matches of `query` among `memories`, best first.
 *
 * - A memory's text is its `content` plus its `tags`.
 * - Score: BM25 summed over the query's terms that the memory contains, times how many distinct
 *   query terms it contains; a query term of three or more letters also matches, with a lower
 *   weight, the words it begins (`meeting` finds `meetings`). Rare terms weigh more than common
 *   ones, and a match in a short memory more than in a long one.
 * - Ties go to the newer `updatedAt`, then to the smaller `id` (so the order is total).
 * - Memories matching none of the query's terms are left out.
 * - A query without terms (empty, blank, punctuation only) returns the newest first.
 *
 * `limit` must be a positive integer (else `INVALID_INPUT`). `memories` is not changed. Pass the
 * same `index` on every call over one growing set (a storage's namespace) to reuse its work.
 * Needs {@link loadMemorySearch} to have settled.
 */
export function rankMemories(
  memories: readonly Memory[],
  query: string,
  limit: number,
  index: MemoryIndex = new MemoryIndex(),
): Memory[] {
  assertLimit(limit);
  if (queryTermsOf(query).length === 0) return [...memories].sort(newestFirst).slice(0, limit);
  const byId = index.sync(memories);
  return index
    .match(query)
    .map(({ id, score }) => ({ memory: byId.get(id)!, score: Number(score.toPrecision(SCORE_DIGITS)) }))
    .sort((a, b) => b.score - a.score || newestFirst(a.memory, b.memory))
    .slice(0, limit)
    .map(({ memory }) => memory);
}

/** The distinct terms of a search query. */
export function queryTermsOf(text: string): string[] {
  return [...new Set(termsOf(text, false))];
}

/** The terms of a memory's text (may repeat: frequency counts). */
export function documentTermsOf(text: string): string[] {
  return termsOf(text, true);
}

function termsOf(text: string, withCharacters: boolean): string[] {
  const terms: string[] = [];
  for (const word of text.normalize('NFKC').toLowerCase().match(WORD) ?? []) {
    if (!UNSPACED.test(word)) {
      terms.push(word);
      continue;
    }
    terms.push(...segmentedWords(word));
    for (const [run] of word.matchAll(CJK_RUN)) {
      const chars = Array.from(run);
      if (withCharacters && chars.length > 1) terms.push(...chars);
      for (let i = 0; i + 1 < chars.length; i += 1) terms.push(chars[i]! + chars[i + 1]!);
    }
  }
  return terms;
}

/** The words the segmenter finds in `word` (which has no spaces or punctuation). */
function segmentedWords(word: string): string[] {
  // Made on first use: building one loads the locale's word-break data.
  segmenter ??= new Intl.Segmenter(undefined, { granularity: 'word' });
  const words: string[] = [];
  for (const { segment, isWordLike } of segmenter.segment(word)) if (isWordLike) words.push(segment);
  return words;
}

function searchableText(memory: Memory): string {
  return [memory.content, ...(memory.tags ?? [])].join('\n');
}

/** Comparator: newer `updatedAt` (by instant) first, then smaller `id`. */
function newestFirst(a: Memory, b: Memory): number {
  const byTime = Date.parse(b.updatedAt) - Date.parse(a.updatedAt);
  if (byTime !== 0 && !Number.isNaN(byTime)) return byTime;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

function assertLimit(limit: number): void {
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1) {
    throw Errors.invalidInput(`limit must be a positive integer, got ${String(limit)}`);
  }
}
