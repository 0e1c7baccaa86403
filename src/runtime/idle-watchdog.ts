/**
 * A watchdog for a stream that may stall: it fires once no data arrived for `timeoutMs` (before
 * the first data too). Touching it costs one clock read, not a timer: the one timer it keeps
 * re-arms itself for the time left when it finds the stream was touched meanwhile.
 * @module
 */
import type { Clock } from '../clock.js';

/** A running watchdog. */
export interface IdleWatchdog {
  /** Data arrived. */
  touch(): void;
  /** Stops it for good (the stream ended). */
  stop(): void;
}

/** Starts a watchdog that calls `onIdle` once, after `timeoutMs` without a `touch()`. */
export function startIdleWatchdog(clock: Clock, timeoutMs: number, onIdle: () => void): IdleWatchdog {
  let last = clock.now();
  let stopped = false;
  let timer: unknown;
  const arm = (ms: number) => {
    timer = clock.setTimeout(check, ms);
  };
  const check = () => {
    if (stopped) return;
    const left = last + timeoutMs - clock.now();
    if (left > 0) return arm(left);
    stopped = true;
    onIdle();
  };
  arm(timeoutMs);
  return {
    touch: () => void (last = clock.now()),
    stop: () => {
      stopped = true;
      clock.clearTimeout(timer);
    },
  };
}
