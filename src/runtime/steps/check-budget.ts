/**
 * `checkBudget`: before each request of a budgeted turn, projects the request against the turn's
 * and the session's budgets (see `planRequest`). A request that fits goes out with its
 * `maxOutputTokens` clamped to what is left; one that does not is never sent: a non-fatal
 * `BUDGET_EXCEEDED`, and the turn completes. A USD budget nothing can price is reported once per
 * `Session` object (`COST_UNKNOWN`); the token budgets still apply.
 * @module
 */
import type { CheckBudgetOutput, PrepareInput } from '../../../machines/turn.types.js';
import { planRequest, type BudgetLimits, type ExhaustedLimit } from '../../budget/plan-request.js';
import type { UsageTotals } from '../../conversation/usage-totals.js';
import { AgentError, Errors } from '../../errors.js';
import type { TurnPrompt } from '../../prompt/session-prompt.js';
import type { ModelInfo } from '../../types.js';

/** What `checkBudget` uses. */
export interface CheckBudgetScope {
  model: Pick<ModelInfo, 'id' | 'pricing'>;
  prompt: Pick<TurnPrompt, 'build'>;
  /** Estimated input tokens of a request with this system prompt and the current history. */
  estimateTokens(systemPrompt: string): number;
  turn: { limits: BudgetLimits; spent: UsageTotals };
  session: { limits: BudgetLimits; spent: UsageTotals };
  /** Reports `COST_UNKNOWN` unless this `Session` object already did. */
  reportCostUnknownOnce(error: AgentError): void;
  report(error: AgentError): void;
}

/** Runs the `checkingBudget` step. */
export async function checkBudget(scope: CheckBudgetScope, input: PrepareInput): Promise<CheckBudgetOutput> {
  const estimate = scope.estimateTokens(await scope.prompt.build(input.dynamicSections));
  const plan = planRequest({
    estimate,
    pricing: scope.model.pricing,
    maxOutputTokens: null,
    turn: scope.turn,
    session: scope.session,
  });
  if (plan.costUnknown) scope.reportCostUnknownOnce(Errors.costUnknown(scope.model.id));
  if (plan.allowed) return { allowed: true, maxOutputTokens: plan.maxOutputTokens };
  scope.report(Errors.budgetExceeded(budgetExceededMessage(plan.exhausted, estimate)));
  return { allowed: false };
}

/**
 * What `BUDGET_EXCEEDED` says.
 * @example
 * budgetExceededMessage({ scope: 'turn', unit: 'USD', limit: 0.01, spent: 0.0093 }, 1200);
 * // 'the turn budget of 0.01 USD has no room for the next request (0.0093 USD spent, about 1200 input tokens to send)'
 */
export function budgetExceededMessage(limit: ExhaustedLimit, estimate: number): string {
  const spent = limit.unit === 'USD' ? Number(limit.spent.toPrecision(6)) : limit.spent;
  return (
    `the ${limit.scope} budget of ${limit.limit} ${limit.unit} has no room for the next request ` +
    `(${spent} ${limit.unit} spent, about ${estimate} input tokens to send)`
  );
}
