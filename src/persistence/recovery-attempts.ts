/**
 * How often a server has recovered a turn, and whether it may run again, from the session's
 * stored events. A turn's runs are its first run (`turn_started`) and each recovery
 * (`turn_recovery { turnId, attempt, at }`, stored before the recovered run starts), so the count
 * holds across instances. Progress — a stored model response (`usage`) or tool result after a
 * run started — resets it: only runs that died in a row without progress count. The partial text
 * a killed run leaves is not progress. Pure: the server reads the events, this decides.
 * @module
 */
import * as z from 'zod/mini';
import type { SessionEvent } from '../types.js';
import { TURN_STARTED_KEY, USAGE_KEY } from './metadata-keys.js';
import { recordOf } from './metadata-records.js';

/** `{ turnId, attempt, at }`: a server recovers a turn (stored before the recovered run starts). */
export const TURN_RECOVERY_KEY = 'turn_recovery';

/** What the stored events say about the next recovery of a turn. */
export interface RecoveryPlan {
  /** The number of the next recovery: 1 for the first of the turn. */
  attempt: number;
  /** Runs of the turn that died since its last progress. */
  runs: number;
  /** `runs` reached `maxAttempts`: the turn is ended `failed`, not run again. */
  exhausted: boolean;
}

const TurnRecordSchema = /* @__PURE__ */ (() => z.looseObject({ turnId: z.nullable(z.string()) }))();

/**
 * The plan for recovering `turnId`, given at most `maxAttempts` runs in a row without progress.
 * @example
 * const plan = planRecovery((await storage.loadSession(id)) ?? [], turnId, 3);
 * if (plan.exhausted) endFailed(); else recover(plan.attempt);
 */
export function planRecovery(events: readonly SessionEvent[], turnId: string, maxAttempts: number): RecoveryPlan {
  let started = false;
  let recoveries = 0;
  let runs = 0;
  for (const event of events) {
    const { payload } = event;
    const turnOf = (key: string) => recordOf(event, key, TurnRecordSchema)?.turnId;
    if (turnOf(TURN_STARTED_KEY) === turnId) {
      started = true;
      runs = 1;
      recoveries = 0;
    } else if (!started) {
      continue;
    } else if (turnOf(TURN_RECOVERY_KEY) === turnId) {
      recoveries++;
      runs++;
    } else if (payload.type === 'tool_result' || turnOf(USAGE_KEY) === turnId) {
      runs = 0;
    }
  }
  // Nothing since the last progress: the run that stopped began before it.
  const died = Math.max(runs, 1);
  return { attempt: recoveries + 1, runs: died, exhausted: died >= maxAttempts };
}

/** The record a recovery stores before it runs the turn. */
export function recoveryRecord(turnId: string, attempt: number, at: string) {
  return { type: 'metadata' as const, key: TURN_RECOVERY_KEY, value: { turnId, attempt, at } };
}
