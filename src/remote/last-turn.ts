/**
 * The last ended turn a session state names (`lastTurn`): how a client whose stream was down
 * when its turn ended (or whose turn another device or instance finished) learns the real result.
 * @module
 */
import * as z from 'zod/mini';
import type { WireTurnResult } from './remote-turn.js';

const str = z.string();
const num = z.number();

const LastTurnSchema = /* @__PURE__ */ (() =>
  z.looseObject({
    turnId: str,
    result: z.looseObject({
      status: z.enum(['completed', 'cancelled', 'failed']),
      usage: z.looseObject({ inputTokens: num, outputTokens: num, totalTokens: num }),
      cost: z.nullable(num),
      output: z.optional(z.unknown()),
      error: z.optional(z.looseObject({ code: str, message: str, retryable: z.boolean(), source: str })),
    }),
  }))();

/** The state's `lastTurn` when it has one of the right shape, else `null`. */
export function lastTurnOf(state: object): { turnId: string; result: WireTurnResult } | null {
  const parsed = z.safeParse(LastTurnSchema, (state as { lastTurn?: unknown }).lastTurn);
  return parsed.success ? (parsed.data as unknown as { turnId: string; result: WireTurnResult }) : null;
}
