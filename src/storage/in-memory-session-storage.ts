/**
 * {@link InMemorySessionStorage}: sessions kept in a `Map`, for Node, tests, and apps that do
 * not need sessions to outlive the process.
 * @module
 */
import { Errors } from '../errors.js';
import type { SessionStorage } from '../ports/storage.js';
import { SessionEventSchema } from '../types.js';
import type { SessionEvent, SessionPage, SessionSummary } from '../types.js';
import { parseInput } from '../validate.js';
import { compareNewestFirst, pageNewestFirst, parsePageRequest } from './cursor.js';
import { applyEventToSummary, matchesQuery, normalizeQuery, searchableText } from './session-summary.js';

interface StoredSession {
  summary: SessionSummary;
  events: SessionEvent[];
}

/**
 * A {@link SessionStorage} in memory. Meets the shared storage contract: events are validated
 * (`INVALID_INPUT` naming the failing path) and stored as copies, so neither the caller's later
 * changes to a saved event nor changes to returned values reach the stored data.
 *
 * @example
 * const storage = new InMemorySessionStorage();
 * const agent = await new AgentBuilder({ defaultModel: 'gpt-4o-mini' })
 *   .registerModelProvider(provider)
 *   .registerSessionStorage(storage)
 *   .build();
 */
export class InMemorySessionStorage implements SessionStorage {
  readonly #sessions = new Map<string, StoredSession>();

  /** Appends `event` to the session `sessionId`, creating the session on its first event. */
  async saveEvent(sessionId: string, event: SessionEvent): Promise<void> {
    assertSessionId(sessionId);
    const valid = copy(parseInput(SessionEventSchema, event, 'event'));
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

  /** Removes the session and its events; a no-op for an unknown id. */
  async deleteSession(sessionId: string): Promise<void> {
    assertSessionId(sessionId);
    this.#sessions.delete(sessionId);
  }
}

function assertSessionId(sessionId: unknown): asserts sessionId is string {
  if (typeof sessionId !== 'string' || sessionId === '') {
    throw Errors.invalidInput('sessionId must be a non-empty string');
  }
}

/** A deep copy; a value that cannot be cloned (a function, say) is invalid input. */
function copy<T>(value: T): T {
  try {
    return structuredClone(value);
  } catch (error) {
    throw Errors.invalidInput(`value cannot be stored: ${String(error)}`, error);
  }
}
