/**
 * {@link InMemorySessionStorage}: sessions kept in a `Map`, for Node, tests, and apps that do
 * not need sessions to outlive the process.
 * @module
 */
import * as Errors from '../error-constructors.js';
import { generateId } from '../ids.js';
import type { SaveEventOptions, SessionDraft, SessionStorage } from '../ports/storage.js';
import { SessionEventSchema } from '../types.js';
import type { SessionEvent, SessionPage, SessionSummary } from '../types.js';
import { parseInput } from '../validate.js';
import { copyForStorage } from '../copy-data.js';
import { compareNewestFirst, pageNewestFirst, parsePageRequest } from './cursor.js';
import { applyEventToSummary, matchesQuery, normalizeQuery, searchableText } from './session-summary.js';
import { nextEpoch, parseDraft, parseWriterEpoch, staleWriteError } from './writer-fencing.js';

interface StoredSession {
  summary: SessionSummary;
  events: SessionEvent[];
}

/** Options of {@link InMemorySessionStorage}. */
export interface InMemorySessionStorageOptions {
  /**
   * Names the cross-tab lock and change channel of its sessions. Default: a name unique to this
   * instance, since no other instance shares its data (two in-memory storages never share locks).
   */
  namespace?: string;
}

/**
 * A {@link SessionStorage} in memory. Meets the shared storage contract: events are validated
 * (`INVALID_INPUT` naming the failing path) and stored as copies, so neither the caller's later
 * changes to a saved event nor changes to returned values reach the stored data. It fences
 * writers (`claimWriter`, `saveEvent(..., { writerEpoch })`) and keeps drafts.
 *
 * @example
 * const storage = new InMemorySessionStorage();
 * const agent = await new AgentBuilder({ defaultModel: 'gpt-4o-mini' })
 *   .registerModelProvider(provider)
 *   .registerSessionStorage(storage)
 *   .build();
 */
export class InMemorySessionStorage implements SessionStorage {
  readonly namespace: string;
  readonly #sessions = new Map<string, StoredSession>();
  /** The current writer epoch per session, and the highest epoch handed out for any session. */
  readonly #epochs = new Map<string, number>();
  #epochCounter = 0;
  readonly #drafts = new Map<string, SessionDraft>();

  constructor(options: InMemorySessionStorageOptions = {}) {
    const namespace = options.namespace;
    if (namespace !== undefined && (typeof namespace !== 'string' || namespace === '')) {
      throw Errors.invalidInput('namespace must be a non-empty string');
    }
    this.namespace = namespace ?? `in-memory-${generateId()}`;
  }

  /**
   * Appends `event` to the session `sessionId`, creating the session on its first event. With
   * `options.writerEpoch`, refused (`STORAGE_ERROR`, cause `SESSION_WRITER_REPLACED`) unless it
   * is the session's current epoch.
   */
  async saveEvent(sessionId: string, event: SessionEvent, options?: SaveEventOptions): Promise<void> {
    assertSessionId(sessionId);
    const valid = copy(parseInput(SessionEventSchema, event, 'event'));
    const stale = staleWriteError(sessionId, parseWriterEpoch(options), this.#epochs.get(sessionId));
    if (stale) throw stale;
    const stored = this.#sessions.get(sessionId);
    const summary = applyEventToSummary(stored?.summary ?? null, sessionId, valid);
    if (stored === undefined) {
      this.#sessions.set(sessionId, { summary, events: [valid] });
    } else {
      stored.summary = summary;
      stored.events.push(valid);
    }
  }

  /** The session's events in append order, or `null` if there is no such session. */
  async loadSession(sessionId: string): Promise<SessionEvent[] | null> {
    assertSessionId(sessionId);
    const stored = this.#sessions.get(sessionId);
    return stored === undefined ? null : copy(stored.events);
  }

  /** The session's summary, or `null` if there is no such session. */
  async loadSummary(sessionId: string): Promise<SessionSummary | null> {
    assertSessionId(sessionId);
    const stored = this.#sessions.get(sessionId);
    return stored === undefined ? null : copy(stored.summary);
  }

  /** One page of sessions, newest update first (see `cursor.ts` for the paging guarantee). */
  async listSessions(cursor: string | null, limit: number): Promise<SessionPage> {
    const request = parsePageRequest(cursor, limit);
    const summaries = [...this.#sessions.values()].map((stored) => stored.summary);
    return copy(pageNewestFirst(summaries, request));
  }

  /** Sessions whose title or message text contains `query` (case-insensitive), newest first. */
  async findSessions(query: string): Promise<SessionSummary[]> {
    if (typeof query !== 'string') throw Errors.invalidInput('query must be a string');
    const normalized = normalizeQuery(query);
    if (normalized === '') return [];
    const found = [...this.#sessions.values()]
      .filter(
        ({ summary, events }) =>
          matchesQuery(summary.title, normalized) ||
          events.some((event) => matchesQuery(searchableText(event), normalized)),
      )
      .map(({ summary }) => summary)
      .sort(compareNewestFirst);
    return copy(found);
  }

  /** Removes the session, its events, draft and writer claim; a no-op for an unknown id. */
  async deleteSession(sessionId: string): Promise<void> {
    assertSessionId(sessionId);
    this.#sessions.delete(sessionId);
    this.#drafts.delete(sessionId);
    this.#epochs.delete(sessionId);
  }

  /** Makes the caller the session's only writer (the session need not exist yet); returns its epoch. */
  async claimWriter(sessionId: string): Promise<number> {
    assertSessionId(sessionId);
    const epoch = nextEpoch(this.#epochCounter, this.#epochs.get(sessionId));
    this.#epochCounter = epoch;
    this.#epochs.set(sessionId, epoch);
    return epoch;
  }

  /** Keeps the running turn's streamed text (replacing the previous draft); `null` clears it. */
  async saveDraft(sessionId: string, draft: SessionDraft | null): Promise<void> {
    assertSessionId(sessionId);
    const valid = parseDraft(draft);
    if (valid === null) this.#drafts.delete(sessionId);
    else this.#drafts.set(sessionId, copy(valid));
  }

  /** The draft last saved for the session, or `null`. */
  async loadDraft(sessionId: string): Promise<SessionDraft | null> {
    assertSessionId(sessionId);
    const draft = this.#drafts.get(sessionId);
    return draft === undefined ? null : copy(draft);
  }
}

function assertSessionId(sessionId: unknown): asserts sessionId is string {
  if (typeof sessionId !== 'string' || sessionId === '') {
    throw Errors.invalidInput('sessionId must be a non-empty string');
  }
}

/** A deep copy; a value that cannot be cloned (a function, say) is invalid input. */
const copy = <T>(value: T): T => copyForStorage(value, 'value');
