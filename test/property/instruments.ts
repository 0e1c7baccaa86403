/**
 * What a property run uses to see time and to hold things open: a clock that knows the runtime's
 * pending timers (and can make one long wait short), the harness's own timers, and gates that
 * hold a stream, a tool or a hook until the harness releases them.
 * @module
 */
import type { Clock } from '../../src/index.js';

/** Time limits long enough never to fire by themselves; the clock expires them on purpose. */
export const HOOK_TIMEOUT_MS = 50_000;
export const TOOL_TIMEOUT_MS = 40_000;
/** The server wait a failure asks for when the run wants to act during the retry wait (1 ms real). */
export const RETRY_WAIT_MS = 45_000;

interface PendingTimer {
  ms: number;
  handle: ReturnType<typeof setTimeout>;
  run: () => void;
}

/**
 * The agent's clock: the system time and real timers, recorded while pending. Two seams let a
 * run reach the long waits without waiting for them:
 * - `onTimer(ms)` hears every timer the runtime sets (a retry wait announces itself by its
 *   length);
 * - `expireNext(ms)` makes the next timer of that length fire at once, `hurryAll(ms)` the pending
 *   ones (a hook or tool that never settles meets its time limit now, not 50 s later), `skip(ms)`
 *   also moves `now()` on (a stalled stream meets its idle bound now).
 * `shorten` maps a length to the real wait it gets.
 */
export class TrackingClock implements Clock {
  readonly #pending = new Map<object, PendingTimer>();
  readonly #expire = new Map<number, number>();
  readonly #idle: (() => void)[] = [];
  #offset = 0;
  onTimer: ((ms: number) => void) | null = null;

  constructor(private readonly shorten: ReadonlyMap<number, number> = new Map()) {}

  now(): number {
    return Date.now() + this.#offset;
  }

  setTimeout(callback: () => void, ms: number): unknown {
    const key = {};
    const expiring = this.#expire.get(ms) ?? 0;
    if (expiring > 0) this.#expire.set(ms, expiring - 1);
    const real = expiring > 0 ? 0 : (this.shorten.get(ms) ?? ms);
    const run = () => {
      this.#settle(key);
      callback();
    };
    this.#pending.set(key, { ms, handle: setTimeout(run, real), run });
    this.onTimer?.(ms);
    return key;
  }

  clearTimeout(key: unknown): void {
    const timer = this.#pending.get(key as object);
    if (!timer) return;
    clearTimeout(timer.handle);
    this.#settle(key as object);
  }

  /** The next timer of length `ms` fires at once. */
  expireNext(ms: number): void {
    this.#expire.set(ms, (this.#expire.get(ms) ?? 0) + 1);
  }

  /** Every pending timer of length `ms` fires now (one already running when the need arose). */
  hurryAll(ms: number): void {
    for (const timer of this.#pending.values()) {
      if (timer.ms !== ms) continue;
      clearTimeout(timer.handle);
      timer.handle = setTimeout(timer.run, 0);
    }
  }

  /**
   * Time jumps `ms` ahead and the pending timers of that length fire now: a wait that measures
   * itself with `now()` (the stream idle watchdog) finds its time up.
   */
  skip(ms: number): void {
    this.#offset += ms;
    this.hurryAll(ms);
  }

  /** Lengths of the runtime's timers still pending. */
  pendingDelays(): number[] {
    return [...this.#pending.values()].map((t) => t.ms);
  }

  /** Resolves once no runtime timer is pending. */
  idle(): Promise<void> {
    if (this.#pending.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  #settle(key: object): void {
    this.#pending.delete(key);
    if (this.#pending.size === 0) this.#idle.splice(0).forEach((resolve) => resolve());
  }
}

/** The harness's own timers, counted so a run can prove it left none behind. */
export class HarnessTimers {
  #pending = 0;

  /** Runs `fn` after `ms` (a macrotask). */
  later(fn: () => void, ms = 0): void {
    this.#pending += 1;
    setTimeout(() => {
      this.#pending -= 1;
      fn();
    }, ms);
  }

  /** Resolves after `ms`. */
  sleep(ms = 0): Promise<void> {
    return new Promise((resolve) => this.later(resolve, ms));
  }

  get pending(): number {
    return this.#pending;
  }
}

/** One hold: `promise` stays pending until `release()`. */
export interface Hold {
  promise: Promise<void>;
  release(): void;
}

/** Gates the harness opens and closes; every one is released by the end of a run. */
export class Gates {
  readonly #open = new Set<() => void>();

  /** A new closed gate. */
  hold(): Hold {
    let release!: () => void;
    const promise = new Promise<void>((resolve) => {
      release = () => {
        this.#open.delete(release);
        resolve();
      };
    });
    this.#open.add(release);
    return { promise, release };
  }

  /**
   * A closed gate for a scripted `wait` that says when the stream reaches it: the scripted
   * provider subscribes (`then`) to a `wait`'s promise exactly when it gets there.
   */
  watched(onReached: () => void): Hold {
    const hold = this.hold();
    const promise = hold.promise.then(() => undefined);
    const then = promise.then.bind(promise);
    let reached = false;
    promise.then = ((...args: Parameters<typeof then>) => {
      if (!reached) {
        reached = true;
        onReached();
      }
      return then(...args);
    }) as typeof promise.then;
    return { promise, release: hold.release };
  }

  /** Gates still closed. */
  get closed(): number {
    return this.#open.size;
  }

  releaseAll(): void {
    [...this.#open].forEach((release) => release());
  }
}
