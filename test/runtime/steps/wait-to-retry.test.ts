import { describe, expect, it } from 'vitest';
import { AgentError } from '../../../src/errors.js';
import { waitToRetry, type RetryScope } from '../../../src/runtime/steps/wait-to-retry.js';
import { HookResult } from '../../../src/types.js';
import { ManualClock, settle } from '../manual-clock.js';
import { IDS, Journal, live } from './support.js';

function setup(random = () => 0.5) {
  const journal = new Journal();
  const clock = new ManualClock();
  const scope: RetryScope = {
    retry: { initialDelayMs: 1_000, maxDelayMs: 10_000 },
    random,
    clock,
    hook: journal.hook,
    emit: journal.emit,
  };
  return { journal, clock, scope };
}

const overloaded = (retryAfterMs?: number) =>
  new AgentError('PROVIDER_ERROR', 'overloaded', {
    retryable: true,
    ...(retryAfterMs !== undefined && { retryAfterMs }),
  });

/** Starts the step and tracks whether it has settled. */
function start(scope: RetryScope, attempt: number, error: AgentError, signal = live()) {
  const state = { settled: false };
  const running = waitToRetry(scope, { ...IDS, attempt, error }, signal).finally(
    () => (state.settled = true),
  );
  return { running, state };
}

describe('waitToRetry', () => {
  it('asks on_retry with the delay, announces the retry, then waits that long on the clock', async () => {
    const { journal, clock, scope } = setup();
    const error = overloaded();
    const { running, state } = start(scope, 2, error);
    await clock.timerSet();
    // Full jitter: the window after attempt 2 is 2 × 1000 ms; random 0.5 picks its middle.
    expect(clock.pending).toEqual([1_000]);
    expect(journal.trail).toEqual(['hook:on_retry', 'emit:retry_scheduled']);
    expect(journal.emitted).toEqual([
      { type: 'retry_scheduled', attempt: 2, delayMs: 1_000, error: error.toJSON() },
    ]);
    expect(journal.hookData('on_retry')).toEqual([{ attempt: 2, delayMs: 1_000, error }]);

    clock.advance(999);
    await settle();
    expect(state.settled).toBe(false);
    clock.advance(1);
    expect(await running).toEqual({ retry: true });
  });

  it('waits what the server asked for instead of jitter, capped at maxDelayMs', async () => {
    const asked = setup(() => 0);
    void start(asked.scope, 1, overloaded(4_321)).running;
    await asked.clock.timerSet();
    expect(asked.clock.pending).toEqual([4_321]);

    const capped = setup(() => 0);
    void start(capped.scope, 1, overloaded(60_000)).running;
    await capped.clock.timerSet();
    expect(capped.clock.pending).toEqual([10_000]);
  });

  it('stops the retries when on_retry aborts: no wait at all', async () => {
    const { journal, clock, scope } = setup();
    journal.hooks.tap('on_retry', 'budget', null, () => HookResult.abort('over budget'));
    expect(await waitToRetry(scope, { ...IDS, attempt: 1, error: overloaded() }, live())).toEqual({
      retry: false,
    });
    expect(clock.pending).toEqual([]);
    // No retry is announced: the error surfaces as the turn's fatal error instead.
    expect(journal.trail).toEqual(['hook:on_retry']);
  });

  it('ends the wait at once when the turn is cancelled, clearing its timer', async () => {
    const { clock, scope } = setup();
    const controller = new AbortController();
    const { running } = start(scope, 1, overloaded(5_000), controller.signal);
    await clock.timerSet();
    const reason = new Error('cancelled');
    controller.abort(reason);
    await expect(running).rejects.toBe(reason);
    expect(clock.pending).toEqual([]);
  });
});
