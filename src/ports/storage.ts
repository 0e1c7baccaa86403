import type { Memory, SessionEvent, SessionPage, SessionSummary } from '../types.js';

/**
 * Where sessions are kept. Events are stored and loaded in append order.
 *
 * Contract (the shared contract test suite checks each rule):
 * - `saveEvent` appends; `loadSession` returns the events in append order, `null` if unknown.
 * - Call order is append order: the runtime calls `saveEvent` again before the previous call has
 *   settled (so a storage can batch a burst), and the events must be stored in the order of the
 *   calls, not of their completion.
 * - The summary follows the events: `title` from the first user message's text, `modelId` from
 *   the `session_config` metadata, `turnCount` = user messages, `eventCount` = events.
 * - `listSessions` pages newest update first; `nextCursor` is opaque and `null` iff nothing
 *   follows; a page boundary stays stable while sessions are appended to.
 * - `findSessions` matches title and message text, case-insensitively.
 * - Failures reject with an `AgentError` `STORAGE_ERROR`.
 */
export interface SessionStorage {
  saveEvent(sessionId: string, event: SessionEvent): Promise<void>;
  loadSession(sessionId: string): Promise<SessionEvent[] | null>;
  listSessions(cursor: string | null, limit: number): Promise<SessionPage>;
  findSessions(query: string): Promise<SessionSummary[]>;
  deleteSession(sessionId: string): Promise<void>;
}

/**
 * Where long-term memories are kept.
 * - `search` looks within one namespace, best keyword match first; an empty query returns the
 *   newest (by `updatedAt`).
 * - `save` inserts or replaces by `id`.
 */
export interface MemoryStorage {
  search(namespace: string, query: string, limit: number): Promise<Memory[]>;
  save(memory: Memory): Promise<void>;
  delete(id: string): Promise<void>;
}
