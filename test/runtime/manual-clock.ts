/**
 * A clock for tests: time moves only when the test calls `advance`, and timers fire then, in
 * due order. Anything the runtime times (event and stored timestamps, durations, retry waits,
 * bounded waits) runs on it when it is the agent's `AgentConfig.clock`.
 */
import type { Clock } from '../../src/clock.js';

interface Timer {
  at: number;
  callback: () => void;
}

/** The start of every manual clock: far from the wall clock, so a stray `Date.now()` shows. */
export const CLOCK_START = Date.parse('2030-01-01T00:00:00.000Z');

export class ManualClock implements Clock {
  #now: number;
  #nextHandle = 1;
  readonly #timers = new Map<number, Timer>();
  #waiters: (() => void)[] = [];

  constructor(start = CLOCK_START) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  setTimeout(callback: () => void, ms: number): unknown {
    const handle = this.#nextHandle++;
    this.#timers.set(handle, { at: this.#now + Math.max(0, ms), callback });
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const wake of waiters) wake();
    return handle;
  }

  clearTimeout(handle: unknown): void {
    this.#timers.delete(handle as number);
  }

  /** The delays (from now) of the timers still pending, soonest first. */
  get pending(): number[] {
    return [...this.#timers.values()].map((t) => t.at - this.#now).sort((a, b) => a - b);
  }

  /** Resolves the next time a timer is set (at once if `pending` already has one). */
  timerSet(): Promise<void> {
    if (this.#timers.size > 0) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  /** Moves time forward by `ms`, firing every timer that falls due, earliest first. */
  advance(ms: number): void {
    const target = this.#now + ms;
    for (;;) {
      let due: [number, Timer] | undefined;
      for (const entry of this.#timers) {
        if (entry[1].at <= target && (!due || entry[1].at < due[1].at)) due = entry;
      }
      if (!due) break;
      this.#timers.delete(due[0]);
      this.#now = due[1].at;
      due[1].callback();
    }
    this.#now = target;
  }
}

/** The time `ms` after {@link CLOCK_START} as an ISO string, as timestamps read it. */
export function isoAt(ms: number): string {
  return new Date(CLOCK_START + ms).toISOString();
}

/** Lets every pending promise continuation run (one macrotask turn). */
export function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
