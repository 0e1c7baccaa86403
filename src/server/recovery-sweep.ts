/**
 * The recovery sweep: every `sweepIntervalMs`, the sessions `find()` lists (turns whose instance
 * stopped, with a free or expired lease) are opened here, which recovers their turns. One sweep
 * at a time; a session held here, or that another instance holds or takes first, is skipped.
 * @module
 */
import { TIMED_OUT, withTimeout } from '../timeout.js';
import type { AgentError } from '../errors.js';
import { asAgentError } from './public-error.js';
import type { SessionHost } from './session-host.js';

/** How long one `find()` may take. */
const FIND_TIMEOUT_MS = 30_000;

/** A running sweep. */
export interface RecoverySweep {
  stop(): void;
}

/** Starts sweeping; `report` gets what failed (a `find` that throws, an open that fails). */
export function startRecoverySweep(
  host: SessionHost,
  options: { find: () => Promise<readonly { sessionId: string; userId: string }[]>; sweepIntervalMs: number },
  report: (error: AgentError, sessionId: string | null, userId: string | null) => void,
): RecoverySweep {
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | null = null;
  const sweep = async () => {
    try {
      const found = await withTimeout(Promise.resolve().then(options.find), FIND_TIMEOUT_MS);
      if (found === TIMED_OUT) throw new Error(`recovery.find did not settle within ${FIND_TIMEOUT_MS} ms`);
      for (const { sessionId, userId } of found) {
        if (stopped || host.closing) return;
        try {
          // Opening it here recovers its turn (a session held elsewhere is left alone).
          await host.open(userId, sessionId, 'read');
        } catch (error) {
          const code = asAgentError(error).code;
          if (code !== 'SESSION_NOT_FOUND' && code !== 'SERVER_BUSY') report(asAgentError(error), sessionId, userId);
        }
      }
    } catch (error) {
      report(asAgentError(error), null, null);
    }
  };
  const next = () => {
    if (stopped) return;
    timer = setTimeout(() => void sweep().finally(next), options.sweepIntervalMs);
    // The sweep keeps no process alive by itself.
    timer.unref?.();
  };
  next();
  return {
    stop: () => {
      stopped = true;
      if (timer !== null) clearTimeout(timer);
    },
  };
}
