/**
 * Keyword ranking of memories, shared by every {@link MemoryStorage} so they all answer a
 * search the same way. Pure.
 *
 * Terms are lower-cased runs of Unicode letters and digits. Han, Hiragana and Katakana are
 * written without spaces, so a run of them is split further: a memory gets every character and
 * every pair of neighbouring characters as terms, a query gets its pairs (or the single
 * character of a one-character run). So `咖啡` finds `我喜欢喝咖啡`, and `茶` finds `喝茶`.
 * @module
 */
import { Errors } from '../errors.js';
import type { Memory } from '../types.js';

const WORD = /[\p{L}\p{N}\p{M}]+/gu;
const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}ー]+/gu;

/**
 * The best `limit` matches of `query` among `memories`, best first.
 *
 * - A memory's text is its `content` plus its `tags`.
 * - Score: number of distinct query terms it contains, then how often they occur in total;
 *   ties go to the newer `updatedAt`, then to the smaller `id` (so the order is total).
 * - Memories containing none of the query's terms are left out.
 * - A query without terms (empty, blank, punctuation only) returns the newest first.
 *
 * `limit` must be a positive integer (else `INVALID_INPUT`). `memories` is not changed.
 */
export function rankMemories(memories: readonly Memory[], query: string, limit: number): Memory[] {
  assertLimit(limit);
  const queryTerms = [...new Set(queryTermsOf(query))];
  if (queryTerms.length === 0) return [...memories].sort(newestFirst).slice(0, limit);

  const scored: { memory: Memory; distinct: number; frequency: number }[] = [];
  for (const memory of memories) {
    const counts = termCounts(documentTermsOf([memory.content, ...(memory.tags ?? [])].join(' ')));
    let distinct = 0;
    let frequency = 0;
    for (const term of queryTerms) {
      const count = counts.get(term) ?? 0;
      if (count > 0) distinct += 1;
      frequency += count;
    }
    if (distinct > 0) scored.push({ memory, distinct, frequency });
  }
  return scored
    .sort((a, b) => b.distinct - a.distinct || b.frequency - a.frequency || newestFirst(a.memory, b.memory))
    .slice(0, limit)
    .map(({ memory }) => memory);
}

/** The terms of a search query (may repeat). */
export function queryTermsOf(text: string): string[] {
  return tokens(text).flatMap((word) => splitUnspaced(word, (run) => (run.length === 1 ? run : pairs(run))));
}

/** The terms of a memory's text (may repeat: frequency counts). */
export function documentTermsOf(text: string): string[] {
  return tokens(text).flatMap((word) => splitUnspaced(word, (run) => [...run, ...pairs(run)]));
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

function tokens(text: string): string[] {
  return text.toLowerCase().match(WORD) ?? [];
}

/**
 * Splits `word` into its unspaced-script runs (each expanded by `expand`) and the rest (kept
 * as whole terms).
 */
function splitUnspaced(word: string, expand: (run: string[]) => string[]): string[] {
  const terms: string[] = [];
  let last = 0;
  for (const match of word.matchAll(UNSPACED)) {
    if (match.index > last) terms.push(word.slice(last, match.index));
    terms.push(...expand(Array.from(match[0])));
    last = match.index + match[0].length;
  }
  if (last < word.length) terms.push(word.slice(last));
  return terms;
}

function pairs(chars: string[]): string[] {
  const result: string[] = [];
  for (let i = 0; i + 1 < chars.length; i += 1) result.push(chars[i]! + chars[i + 1]!);
  return result;
}

function termCounts(terms: string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const term of terms) counts.set(term, (counts.get(term) ?? 0) + 1);
  return counts;
}
