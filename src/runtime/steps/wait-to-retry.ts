/**
 * `waitToRetry`: before attempt n+1 — asks `on_retry` (an abort stops the retries and the error
 * surfaces), announces the retry (`retry_scheduled`, with the failed attempt and the wait), then waits: the server's
 * `Retry-After` when it sent one, else full jitter, never above `maxDelayMs`.
 * @module
 */
import type { RetryInput, RetryOutput } from '../../../machines/turn.types.js';
import type { Clock } from '../../clock.js';
import { retryDelayMs, type RetryDelaySettings } from '../../providers/retry-policy.js';
import { sleep } from '../../timeout.js';
import type { AgentEventPayload } from '../../types.js';
import type { HookCaller } from '../session-scope.js';

/** What `waitToRetry` uses. */
export interface RetryScope {
  retry: RetryDelaySettings;
  /** Source of the jitter (tests pin it). */
  random: () => number;
  clock: Clock;
  hook: HookCaller;
  emit(payload: AgentEventPayload): void;
}

/** Runs the `waitingToRetry` step; resolves `{ retry: false }` when a hook stopped the retries. */
export async function waitToRetry(
  scope: RetryScope,
  input: RetryInput,
  signal: AbortSignal,
): Promise<RetryOutput> {
  const delayMs = retryDelayMs(input.attempt, scope.retry, input.error, scope.random);
  const hook = await scope.hook('on_retry', { attempt: input.attempt, delayMs, error: input.error });
  // Stopped by the hook: the error surfaces as the turn's fatal error, and no retry is announced.
  if (hook.aborted !== null) return { retry: false };
  scope.emit({ type: 'retry_scheduled', attempt: input.attempt, delayMs, error: input.error.toJSON() });
  await sleep(delayMs, signal, scope.clock);
  return { retry: true };
}
