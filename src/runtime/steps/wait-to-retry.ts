/**
 * `waitToRetry`: before attempt n+1 — reports the failed attempt (a non-fatal `error` event),
 * asks `on_retry` (an abort stops the retries and the error surfaces), then waits: the server's
 * `Retry-After` when it sent one, else full jitter, never above `maxDelayMs`.
 * @module
 */
import type { RetryInput, RetryOutput } from '../../../machines/turn.types.js';
import type { Clock } from '../../clock.js';
import { retryDelayMs, type RetryDelaySettings } from '../../providers/retry-policy.js';
import type { AgentError } from '../../errors.js';
import { sleep } from '../../timeout.js';
import type { HookCaller } from '../session-scope.js';

/** What `waitToRetry` uses. */
export interface RetryScope {
  retry: RetryDelaySettings;
  /** Source of the jitter (tests pin it). */
  random: () => number;
  clock: Clock;
  hook: HookCaller;
  report(error: AgentError): void;
}

/** Runs the `waitingToRetry` step; resolves `{ retry: false }` when a hook stopped the retries. */
export async function waitToRetry(
  scope: RetryScope,
  input: RetryInput,
  signal: AbortSignal,
): Promise<RetryOutput> {
  scope.report(input.error);
  const delayMs = retryDelayMs(input.attempt, scope.retry, input.error, scope.random);
  const hook = await scope.hook('on_retry', { attempt: input.attempt, delayMs, error: input.error });
  if (hook.aborted !== null) return { retry: false };
  await sleep(delayMs, signal, scope.clock);
  return { retry: true };
}
