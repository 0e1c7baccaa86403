/**
 * The usage and cost totals a conversation shows: every `usage` event of the session — turn
 * responses, compaction summaries and memory extraction alike — summed. `turn_complete` carries a
 * turn's sum of the same responses, so it is not added again.
 *
 * Every response's usage is also stored (a `usage` metadata record), so a resumed session's
 * totals start from the sum of its stored records.
 * @module
 */
import { addUsage, ZERO_USAGE, type TokenUsage } from '../types.js';

/** Usage and cost so far. */
export interface UsageTotals {
  readonly usage: TokenUsage;
  /** USD; `null` while no response reported a cost. */
  readonly cost: number | null;
}

/** Nothing counted yet. */
export const NO_USAGE: UsageTotals = Object.freeze({ usage: ZERO_USAGE, cost: null });

/**
 * The totals after one more response.
 * @example
 * addResponse(NO_USAGE, { inputTokens: 10, outputTokens: 2, totalTokens: 12 }, 0.001);
 * // { usage: { inputTokens: 10, outputTokens: 2, totalTokens: 12 }, cost: 0.001 }
 */
export function addResponse(totals: UsageTotals, usage: TokenUsage, cost: number | undefined): UsageTotals {
  return {
    usage: addUsage(totals.usage, usage),
    cost: cost === undefined ? totals.cost : (totals.cost ?? 0) + cost,
  };
}
