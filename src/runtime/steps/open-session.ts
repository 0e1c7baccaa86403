/**
 * `openSession`: for a new session, the `session_config` record and `session_start` (resume is
 * not a new session: neither happens again); then the session's memories are loaded.
 * @module
 */
import type { OpenSessionInput } from '../../../machines/session.machine.js';
import { AgentError } from '../../errors.js';
import { SESSION_CONFIG_KEY } from '../../persistence/metadata-keys.js';
import type { StoredSessionConfig } from '../../persistence/replay.js';
import type { Memory, SessionEventPayload } from '../../types.js';
import type { HookCaller } from '../session-scope.js';

/** What `openSession` uses. */
export interface OpenSessionScope {
  sessionConfig: StoredSessionConfig;
  record(payload: SessionEventPayload): void;
  hook: HookCaller;
  /** Loads the session's memories; `null` when memory is off. */
  loadMemories: (() => Promise<Memory[]>) | null;
  useMemories(memories: readonly Memory[]): void;
  report(error: AgentError): void;
}

/** Runs the `opening` step. */
export async function openSession(scope: OpenSessionScope, input: OpenSessionInput): Promise<void> {
  if (!input.resumed) {
    scope.record({ type: 'metadata', key: SESSION_CONFIG_KEY, value: { ...scope.sessionConfig } });
    const outcome = await scope.hook('session_start', {
      sessionId: input.sessionId,
      config: { ...scope.sessionConfig },
    });
    // A session cannot be refused once created: the abort is ignored, and said so.
    if (outcome.aborted !== null) {
      scope.report(
        new AgentError(
          'HOOK_FAILED',
          `a session_start hook tried to abort (${outcome.aborted}); session_start cannot abort, so it was ignored`,
          { source: 'plugin' },
        ),
      );
    }
  }
  if (scope.loadMemories) scope.useMemories(await scope.loadMemories());
}
