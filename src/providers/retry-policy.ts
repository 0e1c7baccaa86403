/**
 * How long to wait before retrying a failed model request.
 * @module
 */

/** The backoff settings `retryDelayMs` reads (`AgentConfig.retry`). */
export interface RetryDelaySettings {
  /** The ceiling of the first jitter window, in ms. */
  initialDelayMs: number;
  /** No delay is ever longer than this, server-requested waits included, in ms. */
  maxDelayMs: number;
}

/** What `retryDelayMs` reads from the failure: an `AgentError` fits. */
export interface RetryDelayHint {
  /** The wait the server asked for (`Retry-After` / `retry-after-ms`), in ms. */
  readonly retryAfterMs?: number | undefined;
}

/**
 * The delay in ms before the next attempt, after attempt number `attempt` (1 for the first
 * request) failed with `error`.
 *
 * - When the server said how long to wait (`error.retryAfterMs`), that wait, capped at
 *   `maxDelayMs` (raise `maxDelayMs` to honour longer server waits).
 * - Otherwise "full jitter": uniformly random in `[0, min(maxDelayMs, initialDelayMs × 2^(attempt−1))]`,
 *   so clients that failed together do not retry together.
 *
 * Pure: `random` (default `Math.random`, values in `[0, 1)`) is the only source of chance.
 * @example
 * retryDelayMs(3, { initialDelayMs: 500, maxDelayMs: 30_000 }, undefined, () => 0.5); // 1000
 * retryDelayMs(1, { initialDelayMs: 500, maxDelayMs: 30_000 }, { retryAfterMs: 7000 }); // 7000
 */
export function retryDelayMs(
  attempt: number,
  settings: RetryDelaySettings,
  error?: RetryDelayHint | null,
  random: () => number = Math.random,
): number {
  const maxDelayMs = Math.max(0, settings.maxDelayMs);
  const serverWait = error?.retryAfterMs;
  if (typeof serverWait === 'number' && Number.isFinite(serverWait)) {
    return Math.min(Math.max(0, Math.ceil(serverWait)), maxDelayMs);
  }
  // attempt < 1 would shrink the window below initialDelayMs; treat it as the first attempt.
  const exponent = Math.max(0, Math.floor(attempt) - 1);
  const initialDelayMs = Math.max(0, settings.initialDelayMs);
  // 2 ** exponent overflows to Infinity for large attempts; 0 × Infinity would be NaN.
  const window = initialDelayMs === 0 ? 0 : initialDelayMs * 2 ** exponent;
  const ceiling = Math.min(maxDelayMs, window);
  // Clamp `random` too: a caller-supplied source outside [0, 1) must not break the bound.
  const r = Math.min(Math.max(random(), 0), 1);
  return Math.round(r * ceiling);
}
