/**
 * Calling foreign approval code (the agent's policy, a tool's `needsApproval`): a throw, a
 * rejection, an answer of the wrong kind and a wait past the limit all come back as a failure,
 * never as an exception or a hang.
 * @module
 */
import type { Clock } from '../clock.js';
import { describeError } from '../errors.js';
import { TIMED_OUT, isThenable, withTimeout } from '../timeout.js';

/** What a bounded call gives back. */
export type BoundedOutcome<T> = { ok: true; value: T } | { ok: false; problem: string };

/**
 * Calls `fn`, waits at most `timeoutMs` for a promised answer, and checks the answer with `valid`.
 * @example
 * await callBounded(() => policy(query), 30_000, clock, isPolicyAnswer); // { ok: true, value: 'ask' }
 */
export async function callBounded<T>(
  fn: () => unknown,
  timeoutMs: number,
  clock: Clock,
  valid: (value: unknown) => value is T,
): Promise<BoundedOutcome<T>> {
  let value: unknown;
  try {
    value = fn();
    if (isThenable(value)) value = await withTimeout(value, timeoutMs, undefined, clock);
  } catch (error) {
    return { ok: false, problem: describeError(error) };
  }
  if (value === TIMED_OUT) return { ok: false, problem: `no answer within ${timeoutMs}ms` };
  if (!valid(value)) return { ok: false, problem: `unexpected answer ${describeValue(value)}` };
  return { ok: true, value };
}

function describeValue(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
