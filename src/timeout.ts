/**
 * One way to bound a wait: tool calls, hook handlers and plugin shutdowns all race their promise
 * against a timer, and all need the same care (clear the timer; cap the delay setTimeout honours).
 * @module
 */

/** What {@link withTimeout} resolves to when time ran out first. */
export const TIMED_OUT: unique symbol = Symbol('timed out');

/** The longest delay `setTimeout` honours; longer ones would fire at once. */
export const MAX_TIMER_MS = 2_147_483_647;

/**
 * Resolves with `value`'s result, or {@link TIMED_OUT} when `ms` pass first (then `onTimeout`
 * runs, after the race is settled — so a value that rejects on that signal still reads as a
 * timeout). Rejects when `value` rejects in time. The timer is always cleared.
 */
export async function withTimeout<T>(
  value: PromiseLike<T>,
  ms: number,
  onTimeout?: () => void,
): Promise<T | typeof TIMED_OUT> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<typeof TIMED_OUT>((resolve) => {
    timer = setTimeout(
      () => {
        resolve(TIMED_OUT);
        onTimeout?.();
      },
      Math.min(ms, MAX_TIMER_MS),
    );
  });
  try {
    return await Promise.race([value, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

/** Waits `ms`, or rejects at once when `signal` aborts (a cancelled retry wait ends now). */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
