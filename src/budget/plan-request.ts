/**
 * Budgets, checked before every request they count (turn, compaction, memory): whether the
 * request may go out, and how many output tokens it may ask for. Pure.
 *
 * For each limit that applies, with `S` spent so far in its scope, `L` the limit, `E` the
 * request's estimated input tokens and prices `in` / `out` in USD per million tokens:
 *
 * - tokens: `L − S − E` output tokens are left;
 * - USD: `floor(((L − S) × 1e6 − E × in) / out)` output tokens are left (any number when
 *   `out` is 0 and the input is paid for).
 *
 * The request goes out when every limit leaves at least one output token, with `maxOutputTokens`
 * the least of them (and of what the request already asked for); otherwise it is not sent. So
 * its projected cost — `E × in + maxOutputTokens × out` — always fits the budget.
 *
 * Spent USD is what responses cost (a server-reported cost wins over the price list). A model
 * with no price list can still have a USD budget when its server reports costs: then only the
 * spent amount is checked (no clamp). With neither, USD limits cannot be checked: the plan says
 * so (`costUnknown`) and only token limits apply.
 * @module
 */
import type { UsageTotals } from '../conversation/usage-totals.js';
import type { ModelPricing } from '../types.js';

/** Limits of one scope (a turn or a session). */
export interface BudgetLimits {
  /** USD. */
  maxCost?: number | undefined;
  /** Tokens (`totalTokens` of the responses: input and output). */
  maxTokens?: number | undefined;
}

/** What the plan reads. */
export interface PlanInput {
  /** Estimated input tokens of the request. */
  estimate: number;
  pricing: ModelPricing | undefined;
  /** `maxOutputTokens` the request asks for without a budget; `null` for none. */
  maxOutputTokens: number | null;
  turn: { limits: BudgetLimits; spent: UsageTotals };
  session: { limits: BudgetLimits; spent: UsageTotals };
}

/** The limit that leaves no room for the request. */
export interface ExhaustedLimit {
  scope: 'turn' | 'session';
  unit: 'USD' | 'tokens';
  limit: number;
  spent: number;
}

/** Whether the request may go out, and with how many output tokens at most. */
export type RequestPlan = (
  { allowed: true; maxOutputTokens: number | null } | { allowed: false; exhausted: ExhaustedLimit }
) & {
  /** A USD limit applies but nothing tells what requests cost: it was not checked. */
  costUnknown: boolean;
};

const PER_MILLION = 1_000_000;

/**
 * Plans one request under the turn's and the session's limits.
 * @example
 * planRequest({
 *   estimate: 1000, pricing: { inputPerMillion: 1, outputPerMillion: 2 }, maxOutputTokens: null,
 *   turn: { limits: { maxCost: 0.003 }, spent: NO_USAGE }, session: { limits: {}, spent: NO_USAGE },
 * });
 * // { allowed: true, maxOutputTokens: 1000, costUnknown: false }: (0.003 × 1e6 − 1000 × 1) / 2
 */
export function planRequest(input: PlanInput): RequestPlan {
  const { estimate, pricing } = input;
  const costKnown = pricing !== undefined || input.session.spent.cost !== null;
  let costUnknown = false;
  let room = input.maxOutputTokens ?? Number.POSITIVE_INFINITY;
  let tightest: ExhaustedLimit | null = null;
  // Only a limit can leave less than one token: the request's own maxOutputTokens is at least 1.
  const consider = (left: number, limit: ExhaustedLimit) => {
    if (left >= room) return;
    room = left;
    tightest = limit;
  };
  for (const scope of ['turn', 'session'] as const) {
    const { limits, spent } = input[scope];
    if (limits.maxTokens !== undefined) {
      const used = spent.usage.totalTokens;
      consider(limits.maxTokens - used - estimate, {
        scope,
        unit: 'tokens',
        limit: limits.maxTokens,
        spent: used,
      });
    }
    if (limits.maxCost !== undefined) {
      if (!costKnown) {
        costUnknown = true;
        continue;
      }
      const used = spent.cost ?? 0;
      consider(outputTokensLeft(limits.maxCost - used, estimate, pricing), {
        scope,
        unit: 'USD',
        limit: limits.maxCost,
        spent: used,
      });
    }
  }
  if (room < 1) return { allowed: false, exhausted: tightest!, costUnknown };
  return { allowed: true, maxOutputTokens: Number.isFinite(room) ? room : null, costUnknown };
}

/** Output tokens `leftUsd` pays for after the input; any number without a price list. */
function outputTokensLeft(leftUsd: number, estimate: number, pricing: ModelPricing | undefined): number {
  // Without prices only what was spent can be checked: room while anything is left.
  if (!pricing) return leftUsd > 0 ? Number.POSITIVE_INFINITY : 0;
  const leftMicros = leftUsd * PER_MILLION - estimate * pricing.inputPerMillion;
  if (pricing.outputPerMillion === 0) return leftMicros >= 0 ? Number.POSITIVE_INFINITY : 0;
  return Math.floor(leftMicros / pricing.outputPerMillion);
}

/**
 * The stricter of two limits of the same kind.
 * @example
 * stricter(0.5, undefined); // 0.5
 */
export function stricter(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return Math.min(a, b);
}

/** Whether any limit is set. */
export function hasLimits(limits: BudgetLimits): boolean {
  return limits.maxCost !== undefined || limits.maxTokens !== undefined;
}
