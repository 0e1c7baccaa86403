/**
 * One request held to the budgets: `planRequest`'s projection, with what it finds reported. The
 * turn's own requests go through it (the `checkingBudget` step), and so do the requests the
 * runtime makes around them — compaction summaries, memory extraction and consolidation — so a
 * budget holds for every response it counts.
 * @module
 */
import { NO_USAGE, type UsageTotals } from '../conversation/usage-totals.js';
import { charsToTokens, messageChars } from '../context/token-estimate.js';
import { AgentError } from '../errors.js';
import * as Errors from '../error-constructors.js';
import type { ChatPurpose, ChatRequest, ModelPricing } from '../types.js';
import { hasLimits, planRequest, type BudgetLimits, type ExhaustedLimit } from './plan-request.js';

/** A scope's limits and what it spent so far. */
export interface BudgetScope {
  limits: BudgetLimits;
  spent: UsageTotals;
}

/** The budgets a request is held to, read when it is checked (spending grows in between). */
export interface BudgetCheck {
  /** The turn's budget; `null` outside a turn (only the session's applies). */
  turn(): BudgetScope | null;
  session(): BudgetScope;
  /** Reports `COST_UNKNOWN` unless this `Session` object already did. */
  reportCostUnknownOnce(error: AgentError): void;
  /** Reports the `BUDGET_EXCEEDED` of a request that is not sent. */
  report(error: AgentError): void;
}

/** What is checked about one request. */
export interface CheckedRequest {
  /** Estimated input tokens. */
  estimate: number;
  pricing: ModelPricing | undefined;
  modelId: string;
  purpose: ChatPurpose;
  /** `maxOutputTokens` the request asks for without a budget; `null` for none. */
  maxOutputTokens: number | null;
}

/** Whether a request may go out, with how many output tokens at most (`null`: no cap). */
export type BudgetVerdict = { allowed: true; maxOutputTokens: number | null } | { allowed: false };

/** Outside a turn: no turn limits. */
const NO_TURN: BudgetScope = { limits: {}, spent: NO_USAGE };

/**
 * Projects `request` against the budgets; reports `COST_UNKNOWN` (once per session object) and,
 * when it does not fit, `BUDGET_EXCEEDED`.
 * @example
 * checkRequest(budget, { estimate: 1200, pricing, modelId: 'gpt-4o-mini', purpose: 'turn', maxOutputTokens: null });
 * // { allowed: true, maxOutputTokens: 850 }, or { allowed: false } after a BUDGET_EXCEEDED report
 */
export function checkRequest(budget: BudgetCheck, request: CheckedRequest): BudgetVerdict {
  const plan = planRequest({
    estimate: request.estimate,
    pricing: request.pricing,
    maxOutputTokens: request.maxOutputTokens,
    turn: budget.turn() ?? NO_TURN,
    session: budget.session(),
  });
  if (plan.costUnknown) budget.reportCostUnknownOnce(Errors.costUnknown(request.modelId));
  if (plan.allowed) return { allowed: true, maxOutputTokens: plan.maxOutputTokens };
  budget.report(
    Errors.budgetExceeded(budgetExceededMessage(plan.exhausted, request.estimate, request.purpose)),
  );
  return { allowed: false };
}

/**
 * A request the runtime makes on its own (compaction, memory) as the budgets allow it: with
 * `maxOutputTokens` clamped to what is left, or `null` when they cannot pay for it (reported; do
 * not send it). Without any limit the request is returned as it is.
 * @example
 * const admitted = admitRequest(budget, request, model.pricing);
 * if (admitted) await collectText(provider, admitted, signal);
 */
export function admitRequest(
  budget: BudgetCheck,
  request: ChatRequest,
  pricing: ModelPricing | undefined,
): ChatRequest | null {
  const turn = budget.turn();
  if (!hasLimits(budget.session().limits) && !(turn && hasLimits(turn.limits))) return request;
  const verdict = checkRequest(budget, {
    estimate: requestTokens(request),
    pricing,
    modelId: request.model,
    purpose: request.purpose,
    maxOutputTokens: request.maxOutputTokens ?? null,
  });
  if (!verdict.allowed) return null;
  return verdict.maxOutputTokens === null
    ? request
    : { ...request, maxOutputTokens: verdict.maxOutputTokens };
}

/** Estimated input tokens of a request: chars/4 of its prompt, messages and tool specs. */
export function requestTokens(request: ChatRequest): number {
  let chars = request.systemPrompt.length;
  for (const message of request.messages) chars += messageChars(message);
  if (request.tools.length > 0) chars += JSON.stringify(request.tools).length;
  return charsToTokens(chars);
}

/**
 * What `BUDGET_EXCEEDED` says.
 * @example
 * budgetExceededMessage({ scope: 'turn', unit: 'USD', limit: 0.01, spent: 0.0093 }, 1200, 'turn');
 * // 'the turn budget of 0.01 USD has no room for the next request (0.0093 USD spent, about 1200 input tokens to send)'
 */
export function budgetExceededMessage(limit: ExhaustedLimit, estimate: number, purpose: ChatPurpose): string {
  const spent = limit.unit === 'USD' ? Number(limit.spent.toPrecision(6)) : limit.spent;
  const request = purpose === 'turn' ? 'the next request' : `the ${purpose.replace('_', ' ')} request`;
  return (
    `the ${limit.scope} budget of ${limit.limit} ${limit.unit} has no room for ${request} ` +
    `(${spent} ${limit.unit} spent, about ${estimate} input tokens to send)`
  );
}
