/**
 * Recovering a turn whose instance stopped: the server runs `continueTurn()` for it, on any
 * instance that opens the session, with the attempt stored first so that it counts across
 * instances. A turn awaiting approval is parked: it waits for the decision, and no attempt is
 * counted. A turn whose runs died `maxAttempts` times in a row without progress ends `failed`
 * (`RECOVERY_EXHAUSTED`) instead of running again.
 * @module
 */
import { isoNow, systemClock } from '../clock.js';
import { AgentError, Errors } from '../errors.js';
import { planRecovery, recoveryRecord } from '../persistence/recovery-attempts.js';
import type { AgentServerPort } from '../runtime/server-port.js';
import type { RunningTurn, Session } from '../session.js';

/**
 * Starts the recovery of `session`'s interrupted turn, or returns `null` when there is nothing to
 * recover (no interrupted turn, or one parked on an approval).
 */
export async function recoverTurn(
  session: Session,
  port: AgentServerPort,
  maxAttempts: number,
): Promise<RunningTurn | null> {
  const interrupted = session.interruptedTurn;
  if (!interrupted || interrupted.pendingApprovals.length > 0) return null;
  const events = (await port.storage?.loadSession(session.id)) ?? [];
  const plan = planRecovery(events, interrupted.turnId, maxAttempts);
  if (!plan.exhausted) {
    // Stored before the run starts: if this run dies too, the next instance counts it.
    port.record(recoveryRecord(interrupted.turnId, plan.attempt, isoNow(systemClock)));
    if (!(await port.stored())) throw Errors.turnBusy();
  }
  return session._continue({
    rerunMaybeExecuted: (toolName) => port.isIdempotent(toolName),
    outcomeUnknownText: TOOL_OUTCOME_UNKNOWN_SERVER_TEXT,
    recovery: { attempt: plan.attempt },
    ...(plan.exhausted && { fail: recoveryExhausted(plan.runs) }),
  });
}

/** What a mutating call that may have run reads when its turn is recovered (its tool is not idempotent). */
export const TOOL_OUTCOME_UNKNOWN_SERVER_TEXT =
  'Tool outcome unknown: the server stopped while it ran; it may or may not have taken effect.';

/** The error of a turn whose runs died `runs` times in a row without progress. */
export function recoveryExhausted(runs: number): AgentError {
  return new AgentError('RECOVERY_EXHAUSTED', `the turn stopped ${runs} times without progress; it was not run again`);
}
