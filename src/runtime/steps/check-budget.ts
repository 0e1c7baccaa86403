/**
 * `checkBudget`: before each request of a budgeted turn, projects the request against the turn's
 * and the session's budgets (see `planRequest`). A request that fits goes out with its
 * `maxOutputTokens` clamped to what is left; one that does not is never sent: a non-fatal
 * `BUDGET_EXCEEDED`, and the turn completes. A USD budget nothing can price is reported once per
 * `Session` object (`COST_UNKNOWN`); the token budgets still apply.
 * @module
 */
import type { CheckBudgetOutput, PrepareInput } from '../../../machines/turn.types.js';
import { checkRequest, type BudgetCheck } from '../../budget/check-request.js';
import type { TurnPrompt } from '../../prompt/session-prompt.js';
import type { ModelInfo } from '../../types.js';

/** What `checkBudget` uses. */
export interface CheckBudgetScope {
  model: Pick<ModelInfo, 'id' | 'pricing'>;
  prompt: Pick<TurnPrompt, 'build'>;
  /** Estimated input tokens of a request with this system prompt and the current history. */
  estimateTokens(systemPrompt: string): number;
  budget: BudgetCheck;
}

/** Runs the `checkingBudget` step. */
export async function checkBudget(scope: CheckBudgetScope, input: PrepareInput): Promise<CheckBudgetOutput> {
  return checkRequest(scope.budget, {
    estimate: scope.estimateTokens(await scope.prompt.build(input.dynamicSections)),
    pricing: scope.model.pricing,
    modelId: scope.model.id,
    purpose: 'turn',
    maxOutputTokens: null,
  });
}
