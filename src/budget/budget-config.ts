/**
 * The budget settings: the agent's (`AgentConfig.budget`) and one message's
 * (`sendMessage(input, { budget })`), their schemas, and the limits of a turn and of a session
 * they make.
 * @module
 */
import * as z from 'zod/mini';
import { integer } from '../vocabulary/checks.js';
import { stricter, type BudgetLimits } from './plan-request.js';

const usd = () => z.number().check(z.minimum(0));
const tokens = () => integer().check(z.minimum(1));

/** Schema of {@link BudgetConfig}. */
export const BudgetConfigSchema = /* @__PURE__ */ (() =>
  z.strictObject({
    maxCostPerTurn: z.optional(usd()),
    maxCostPerSession: z.optional(usd()),
    maxTokensPerTurn: z.optional(tokens()),
    maxTokensPerSession: z.optional(tokens()),
  }))();

/**
 * The agent's budgets. A turn's budget counts that turn's responses (compaction included); a
 * session's counts every response of the session, resumed ones and memory extraction included.
 * Tokens are the responses' `totalTokens`; USD what they cost (a server-reported cost, else the
 * model's pricing).
 * @example
 * const config: AgentConfig = { defaultModel: 'gpt-4o-mini', budget: { maxCostPerSession: 0.5 } };
 */
export interface BudgetConfig {
  /** USD per turn. */
  maxCostPerTurn?: number;
  /** USD per session. */
  maxCostPerSession?: number;
  /** Tokens per turn. */
  maxTokensPerTurn?: number;
  /** Tokens per session. */
  maxTokensPerSession?: number;
}

/** Schema of {@link MessageBudget}. */
export const MessageBudgetSchema = /* @__PURE__ */ (() =>
  z.strictObject({ maxCost: z.optional(usd()), maxTokens: z.optional(tokens()) }))();

/**
 * One message's budget: limits of its turn, on top of the agent's per-turn ones (the stricter of
 * each applies).
 */
export interface MessageBudget {
  /** USD for this turn. */
  maxCost?: number;
  /** Tokens for this turn. */
  maxTokens?: number;
}

/** The limits of a turn: the message's and the agent's per-turn ones, the stricter of each. */
export function turnBudget(
  config: BudgetConfig | undefined,
  message: MessageBudget | undefined,
): BudgetLimits {
  const limits: BudgetLimits = {};
  const maxCost = stricter(config?.maxCostPerTurn, message?.maxCost);
  const maxTokens = stricter(config?.maxTokensPerTurn, message?.maxTokens);
  if (maxCost !== undefined) limits.maxCost = maxCost;
  if (maxTokens !== undefined) limits.maxTokens = maxTokens;
  return limits;
}

/** The limits of a session. */
export function sessionBudget(config: BudgetConfig | undefined): BudgetLimits {
  const limits: BudgetLimits = {};
  if (config?.maxCostPerSession !== undefined) limits.maxCost = config.maxCostPerSession;
  if (config?.maxTokensPerSession !== undefined) limits.maxTokens = config.maxTokensPerSession;
  return limits;
}
