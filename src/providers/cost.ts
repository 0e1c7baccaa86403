/**
 * What a model response cost, from its token usage and the model's price list.
 * @module
 */
import type { ModelPricing, TokenUsage } from '../types.js';

const PER_MILLION = 1_000_000;

/**
 * The cost of `usage` in USD under `pricing` (USD per million tokens).
 *
 * Cached input tokens are billed at `cachedInputPerMillion` when the price list has one, the rest
 * of the input at `inputPerMillion`; without a cached price every input token costs
 * `inputPerMillion`. Reasoning tokens are part of `outputTokens` (that is how servers count
 * them), so they are billed as output.
 * @example
 * costOf({ inputTokens: 1000, cachedInputTokens: 800, outputTokens: 100, totalTokens: 1100 },
 *        { inputPerMillion: 2.5, cachedInputPerMillion: 1.25, outputPerMillion: 10 });
 * // (200 × 2.5 + 800 × 1.25 + 100 × 10) / 1e6 = 0.0025
 */
export function costOf(usage: TokenUsage, pricing: ModelPricing): number {
  // A server may report more cached tokens than input tokens; never bill a negative remainder.
  const cached =
    pricing.cachedInputPerMillion === undefined
      ? 0
      : Math.min(usage.cachedInputTokens ?? 0, usage.inputTokens);
  const uncached = usage.inputTokens - cached;
  const micros =
    uncached * pricing.inputPerMillion +
    cached * (pricing.cachedInputPerMillion ?? 0) +
    usage.outputTokens * pricing.outputPerMillion;
  return micros / PER_MILLION;
}

/**
 * The cost of one response: what the server reported when it did (it wins), else the price list's
 * figure, else unknown.
 */
export function responseCost(
  usage: TokenUsage,
  reported: number | undefined,
  pricing: ModelPricing | undefined,
): number | undefined {
  return reported ?? (pricing ? costOf(usage, pricing) : undefined);
}
