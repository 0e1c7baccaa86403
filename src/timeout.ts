/**
 * The runtime's waits: bounded ones (tool calls, hook handlers, plugin shutdowns race their work
 * against a timer) and plain ones (retry backoff). All need the same care — clear the timer, cap
 * the delay a timer honours, end at once on abort — and all run on the injected {@link Clock}.
 * @module
 */
import { systemClock, type Clock } from './clock.js';

/** What {@link withTimeout} resolves to when time ran out first. */
export const TIMED_OUT: unique symbol = Symbol('timed out');

/** The longest delay `setTimeout` honours; longer ones would fire at once. */
export const MAX_TIMER_MS = 2_147_483_647;

/**
 * Resolves with `value`'s result, or {@link TIMED_OUT} when `ms` pass first (then `onTimeout`
 * runs, after the race is settled — so a value that rejects on that signal still reads as a
 * timeout). Rejects when `value` rejects in time. The timer is always cleared.
 */
export function withTimeout<T>(
  value: PromiseLike<T>,
  ms: number,
  onTimeout?: () => void,
  clock: Clock = systemClock,
): Promise<T | typeof TIMED_OUT> {
  // One promise and one timer, settled by whichever comes first: this runs for every tool call.
  return new Promise((resolve, reject) => {
    let settled = false;
    const timer = clock.setTimeout(
      () => {
        if (settled) return;
        settled = true;
        resolve(TIMED_OUT);
        onTimeout?.();
      },
      Math.min(ms, MAX_TIMER_MS),
    );
    // `Promise.resolve` adopts any thenable (a foreign one, one whose `then` throws) as a
    // promise would, and returns a native promise as it is.
    Promise.resolve(value).then(
      (result) => {
        if (settled) return;
        settled = true;
        clock.clearTimeout(timer);
        resolve(result);
      },
      (error: unknown) => {
        if (settled) return;
        settled = true;
        clock.clearTimeout(timer);
        reject(error);
      },
    );
  });
}

/** Waits `ms`, or rejects at once with the abort reason when `signal` aborts. */
export function sleep(ms: number, signal: AbortSignal, clock: Clock = systemClock): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = clock.setTimeout(
      () => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      },
      Math.min(ms, MAX_TIMER_MS),
    );
    const onAbort = () => {
      clock.clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Whether `value` is a thenable — a Promise of this realm or another (an iframe, `vm`), or any
 * object with a `then` method. Bounded waits take all of them: checking `instanceof Promise`
 * would let a foreign one through unbounded. A `then` getter that throws counts as a thenable,
 * so awaiting it rejects instead of hanging or crashing.
 */
export function isThenable(value: unknown): value is PromiseLike<unknown> {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return false;
  try {
    return typeof (value as { then?: unknown }).then === 'function';
  } catch {
    return true;
  }
}
