/**
 * The last ended turn of a stored session, as a `state` frame's `lastTurn`: read from the
 * `turn_ended` record (status, usage, cost) and the turn's `turn_output`, if it had one. A failed
 * turn's error is not stored, so a stored last turn carries none.
 * @module
 */
import * as z from 'zod/mini';
import { TURN_ENDED_KEY, TURN_OUTPUT_KEY } from '../persistence/metadata-keys.js';
import { recordOf } from '../persistence/metadata-records.js';
import type { InterruptedTurn, SessionEvent } from '../types.js';
import { TokenUsageSchema } from '../vocabulary/usage.js';
import type { LastTurn, SessionState } from '../remote/wire.js';

const TurnEndedSchema = /* @__PURE__ */ (() =>
  z.looseObject({
    turnId: z.string(),
    status: z.enum(['completed', 'cancelled', 'failed']),
    usage: TokenUsageSchema,
    cost: z.optional(z.number()),
  }))();

const TurnOutputSchema = /* @__PURE__ */ (() => z.looseObject({ turnId: z.string(), output: z.unknown() }))();

/** `state` with the last turn `events` record as ended (`lastTurn`). */
export function withStoredLastTurn(events: readonly SessionEvent[], state: SessionState): SessionState {
  return { ...state, lastTurn: storedLastTurn(events, state.interruptedTurn) };
}

/** The last turn `events` record as ended, or `null` when none ended. */
export function storedLastTurn(
  events: readonly SessionEvent[],
  interruptedTurn: InterruptedTurn | null,
): LastTurn | null {
  for (let i = events.length - 1; i >= 0; i--) {
    const ended = recordOf(events[i]!, TURN_ENDED_KEY, TurnEndedSchema);
    if (ended === null) continue;
    let output: unknown;
    for (let j = i - 1; j >= 0 && output === undefined; j--) {
      const answer = recordOf(events[j]!, TURN_OUTPUT_KEY, TurnOutputSchema);
      if (answer?.turnId === ended.turnId) output = answer.output;
    }
    return {
      turnId: ended.turnId,
      result: {
        turnId: ended.turnId,
        status: ended.status,
        usage: ended.usage,
        cost: ended.cost ?? null,
        ...(output !== undefined && { output }),
        interruptedTurn,
      },
    };
  }
  return null;
}
