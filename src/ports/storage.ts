import type { Observable } from 'rxjs';
import type { SessionChange } from '../sync/session-change-feed.js';
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
 * - `owner` is the `userId` of the first `session_owner` metadata; `loadSummary` (optional)
 *   returns one session's summary.
 * - Failures reject with an `AgentError` `STORAGE_ERROR`.
 */
export interface SessionStorage {
  /**
   * Optional: a name shared by every instance over the same data (IndexedDB: the database name).
   * It names the cross-tab lock (`youyou-agent:<namespace>:<sessionId>`) and change channel.
   * Default `'default'`.
   */
  readonly namespace?: string;
  /**
   * Appends one event. With `options.writerEpoch` (a storage that has `claimWriter`), the write is
   * refused with `STORAGE_ERROR` (cause: an `AgentError` `SESSION_WRITER_REPLACED`) when a later
   * writer claimed the session; the check runs inside the write transaction.
   */
  saveEvent(sessionId: string, event: SessionEvent, options?: SaveEventOptions): Promise<void>;
  loadSession(sessionId: string): Promise<SessionEvent[] | null>;
  listSessions(cursor: string | null, limit: number): Promise<SessionPage>;
  findSessions(query: string): Promise<SessionSummary[]>;
  /**
   * Optional: the summary of one session (as `listSessions` would list it, `owner` included), or
   * `null` when there is no such session, without reading its events.
   */
  loadSummary?(sessionId: string): Promise<SessionSummary | null>;
  deleteSession(sessionId: string): Promise<void>;
  /**
   * Optional fencing: makes the caller the session's only writer and returns its epoch (greater
   * than every epoch returned before for that session). Writes carrying an older epoch are refused;
   * so are all writes carrying an epoch after `deleteSession`, until the next claim.
   */
  claimWriter?(sessionId: string): Promise<number>;
  /** Optional: keeps (or with `null` clears) the streaming text of the running turn. */
  saveDraft?(sessionId: string, draft: SessionDraft | null): Promise<void>;
  /** Optional: the draft last saved for the session, `null` if none. */
  loadDraft?(sessionId: string): Promise<SessionDraft | null>;
  /**
   * Optional: what other instances over the same data do (`appended`, `deleted`), e.g. other
   * processes on one database; this instance's own writes are left out. Never errors. The agent
   * merges it into `agent.sessionChanges`.
   */
  readonly changes?: Observable<SessionChange>;
}

/** What `saveEvent` may be told. */
export interface SaveEventOptions {
  /** The epoch `claimWriter` returned to this writer. */
  writerEpoch?: number;
}

/** The text a turn had streamed so far, checkpointed so that a reload can show it. */
export interface SessionDraft {
  turnId: string;
  text: string;
  /** ISO 8601. */
  updatedAt: string;
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
