/**
 * Loading a stored session for `agent.resumeSession`.
 * @module
 */
import { AgentError, describeError, Errors } from '../errors.js';
import type { SessionStorage } from '../ports/storage.js';
import type { SessionEvent } from '../types.js';
import { INTERRUPTED_MESSAGE_NOTE } from '../prompt/templates.js';
import { replaySessionEvents, type ReplayedSession } from './replay.js';

/**
 * Loads and replays a session; `SESSION_NOT_FOUND` when the storage does not know it. The stored
 * events come along: the conversation shows them all, not only those after the last compaction.
 */
export async function loadSessionForResume(
  storage: SessionStorage,
  sessionId: string,
): Promise<ReplayedSession & { events: readonly SessionEvent[] }> {
  let events;
  try {
    events = await storage.loadSession(sessionId);
  } catch (error) {
    if (AgentError.isInstance(error)) throw error;
    throw Errors.storage(`loading session '${sessionId}' failed: ${describeError(error)}`, error);
  }
  if (!events) throw Errors.sessionNotFound(sessionId);
  return { ...replaySessionEvents(events, INTERRUPTED_MESSAGE_NOTE), events };
}
