/**
 * The Session machine's steps. `openSession`: the `session_config` metadata (new sessions),
 * `session_start` (new sessions only — resume is not a new session), memories loaded.
 * `closeSession`: `session_end`, memory extraction (failures reported, never blocking), then the
 * write queue drained.
 * @module
 */
import type { CloseSessionInput } from '../../../machines/session.machine.js';
import { AgentError, toAgentError } from '../../errors.js';
import { nowIso } from '../../ids.js';
import { loadMemories } from '../../memory/memory-manager.js';
import { SESSION_CONFIG_KEY } from '../../persistence/replay.js';
import type { SessionRuntime } from '../session-runtime.js';
import { runMemoryExtraction } from '../../memory/extraction.js';

/** Runs the `opening` step. */
export async function openSession(rt: SessionRuntime, resumed: boolean): Promise<void> {
  if (!resumed) {
    rt.writes.enqueue({
      timestamp: nowIso(),
      payload: { type: 'metadata', key: SESSION_CONFIG_KEY, value: { ...rt.sessionConfig } },
    });
    const outcome = await rt.hook('session_start', null, {
      sessionId: rt.id,
      config: { ...rt.sessionConfig },
    });
    // A session cannot be refused once created: the abort is ignored, and said so.
    if (outcome.aborted !== null) {
      rt.reportError(
        null,
        new AgentError(
          'HOOK_FAILED',
          `a session_start hook tried to abort (${outcome.aborted}); session_start cannot abort, so it was ignored`,
          {
            source: 'plugin',
          },
        ),
      );
    }
  }
  const memory = rt.services.config.memory;
  const storage = rt.services.memoryStorage;
  if (memory && storage) {
    try {
      rt.memories = await loadMemories(storage, memory.namespace, memory.maxItems);
    } catch (error) {
      rt.reportError(null, toAgentError(error, 'MEMORY_FAILED'));
    }
  }
}

/** Runs the `closing` step. */
export async function closeSession(
  rt: SessionRuntime,
  input: CloseSessionInput,
  signal: AbortSignal,
): Promise<void> {
  await rt.hook('session_end', null, { reason: input.reason, turnCount: input.turnCount });
  await runMemoryExtraction(rt, signal);
  await rt.writes.drain();
}
