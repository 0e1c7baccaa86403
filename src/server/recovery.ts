/**
 * Recovering a turn whose instance stopped: the server runs `continueTurn()` for it, on any
 * instance that opens the session, with the attempt stored first so that it counts across
 * instances. A turn awaiting approval is parked: it waits for the decision, and no attempt is
 * counted. A turn whose runs died `maxAttempts` times in a row without progress ends `failed`
 * (`RECOVERY_EXHAUSTED`) instead of running again.
 * @module
 */
import { isoNow, systemClock } from '../clock.js';
import { Errors } from '../errors.js';
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
  return session._continue({ rerunMaybeExecuted: false, recovery: plan });
}
