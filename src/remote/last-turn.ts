/**
 * The last ended turn a session state names (`lastTurn`): how a client whose stream was down
 * when its turn ended (or whose turn another device or instance finished) learns the real result.
 * @module
 */
import * as z from 'zod/mini';
import type { WireTurnResult } from './remote-turn.js';
import { FRAME_SCHEMAS } from './wire.js';

const LastTurnSchema = /* @__PURE__ */ (() => {
  // The result frame's fields, without the history.
  const { status, usage, cost, output, error } = FRAME_SCHEMAS.result.shape;
  return z.looseObject({ turnId: z.string(), result: z.looseObject({ status, usage, cost, output, error }) });
})();

/** The state's `lastTurn` when it has one of the right shape, else `null`. */
export function lastTurnOf(state: object): { turnId: string; result: WireTurnResult } | null {
  const parsed = z.safeParse(LastTurnSchema, (state as { lastTurn?: unknown }).lastTurn);
  return parsed.success ? (parsed.data as unknown as { turnId: string; result: WireTurnResult }) : null;
}
