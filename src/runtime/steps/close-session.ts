/**
 * `closeSession`: `session_end`, memory extraction (a failure is reported, never blocks), then
 * every pending write drained.
 * @module
 */
import type { CloseSessionInput } from '../../../machines/session.machine.js';
import type { HookCaller } from '../session-scope.js';

/** What `closeSession` uses. */
export interface CloseSessionScope {
  hook: HookCaller;
  /** Extracts memories from the history; `null` when memory is off. */
  extractMemories: ((signal: AbortSignal) => Promise<void>) | null;
  drainWrites(): Promise<void>;
}

/** Runs the `closing` step. */
export async function closeSession(
  scope: CloseSessionScope,
  input: CloseSessionInput,
  signal: AbortSignal,
): Promise<void> {
  await scope.hook('session_end', { reason: input.reason, turnCount: input.turnCount });
  await scope.extractMemories?.(signal);
  await scope.drainWrites();
}
