/**
 * Token usage and its pure arithmetic (the machines sum it in their context).
 *
 * Each module-scope schema is built inside an arrow call marked `@__PURE__`, so that a bundler
 * drops the ones an app does not use.
 * @module
 */
import * as z from 'zod/mini';
import { integer } from './checks.js';

/** @internal A schema of a count or size (an integer ≥ 0), for every count of the vocabulary. */
export const nonNegativeInt = () => integer().check(z.minimum(0));

/** Schema of {@link TokenUsage}. */
export const TokenUsageSchema = /* @__PURE__ */ (() =>
  z.strictObject({
    inputTokens: nonNegativeInt(),
    outputTokens: nonNegativeInt(),
    cachedInputTokens: z.optional(nonNegativeInt()),
    reasoningTokens: z.optional(nonNegativeInt()),
    totalTokens: nonNegativeInt(),
  }))();
/** Token counts of one model response, or summed over a turn. */
export type TokenUsage = z.infer<typeof TokenUsageSchema>;

/** No tokens: the usage of a turn before its first response. */
export const ZERO_USAGE: TokenUsage = Object.freeze({ inputTokens: 0, outputTokens: 0, totalTokens: 0 });

/**
 * Adds two usages; the optional counters stay absent unless either side has them.
 * @example
 * addUsage({ inputTokens: 1, outputTokens: 2, totalTokens: 3 }, null); // the first, unchanged
 */
export function addUsage(a: TokenUsage, b: TokenUsage | null): TokenUsage {
  if (!b) return a;
  const sum: TokenUsage = {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    totalTokens: a.totalTokens + b.totalTokens,
  };
  if (a.cachedInputTokens !== undefined || b.cachedInputTokens !== undefined)
    sum.cachedInputTokens = (a.cachedInputTokens ?? 0) + (b.cachedInputTokens ?? 0);
  if (a.reasoningTokens !== undefined || b.reasoningTokens !== undefined)
    sum.reasoningTokens = (a.reasoningTokens ?? 0) + (b.reasoningTokens ?? 0);
  return sum;
}
