/**
 * The runtime's one source of time: event timestamps, stored timestamps, durations, retry waits
 * and every bounded wait read it, so a test (or an app replaying a session) can run the whole
 * runtime on a clock it controls. `AgentConfig.clock` replaces it; the default is the system's.
 * @module
 */

/**
 * A clock: the current time and one-shot timers.
 * @example
 * // A manual clock for tests: time moves only when the test says so.
 * let now = Date.parse('2026-01-01T00:00:00Z');
 * const timers = new Set<{ at: number; run: () => void }>();
 * const clock: Clock = {
 *   now: () => now,
 *   setTimeout: (run, ms) => { const t = { at: now + ms, run }; timers.add(t); return t; },
 *   clearTimeout: (t) => void timers.delete(t as { at: number; run: () => void }),
 * };
 */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
  /** Calls `callback` once after `ms` milliseconds; returns a handle for {@link Clock.clearTimeout}. */
  setTimeout(callback: () => void, ms: number): unknown;
  /** Cancels a timer that has not fired yet (a no-op for one that has). */
  clearTimeout(handle: unknown): void;
}

/** The system clock: `Date.now()` and the global timers. */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (callback, ms) => globalThis.setTimeout(callback, ms),
  clearTimeout: (handle) => globalThis.clearTimeout(handle as ReturnType<typeof globalThis.setTimeout>),
};

// The last string made, by the millisecond it shows: events come thousands per second, and
// `toISOString` is the costliest part of one. Keyed by the time alone, so any clock may share it.
let cachedMs = Number.NaN;
let cachedIso = '';

/** The clock's current time as an ISO-8601 string. */
export function isoNow(clock: Clock): string {
  const ms = clock.now();
  if (ms !== cachedMs) {
    cachedIso = new Date(ms).toISOString();
    cachedMs = ms;
  }
  return cachedIso;
}
