/**
 * `waitToRetry`: before attempt n+1 — reports the failed attempt (a non-fatal `error` event),
 * asks `on_retry` (an abort stops the retries and the error surfaces), then waits: the server's
 * `Retry-After` when it sent one, else full jitter, never above `maxDelayMs`.
 * @module
 */
import type { AgentError } from '../../errors.js';
import { retryDelayMs } from '../../providers/retry-policy.js';
import type { SessionRuntime, TurnState } from '../session-runtime.js';
import { sleep } from '../../timeout.js';

/** Runs the `waitingToRetry` step; resolves `{ retry: false }` when a hook stopped the retries. */
export async function waitToRetry(
  rt: SessionRuntime,
  turn: TurnState,
  attempt: number,
  error: AgentError,
  signal: AbortSignal,
  random: () => number = Math.random,
): Promise<{ retry: boolean }> {
  rt.reportError(turn.id, error);
  const delayMs = retryDelayMs(attempt, rt.services.config.retry, error, random);
  const hook = await rt.hook('on_retry', turn.id, { attempt, delayMs, error });
  if (hook.aborted !== null) return { retry: false };
  await sleep(delayMs, signal);
  return { retry: true };
}
