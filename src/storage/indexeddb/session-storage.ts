/**
 * `SessionStorage` on IndexedDB: summaries and events in one database, writes batched into few
 * transactions, every record validated when read back.
 * @module
 */
import * as z from 'zod/mini';
import { describeError, Errors } from '../../errors.js';
import type { SessionStorage } from '../../ports/storage.js';
import { SessionEventSchema, SessionSummarySchema } from '../../types.js';
import type { SessionEvent, SessionPage, SessionSummary } from '../../types.js';
import { parseInput } from '../../validate.js';
import { encodeCursor, parsePageRequest } from '../cursor.js';
import {
  applyEventToSummary,
  matchesQuery,
  normalizeQuery,
  searchableText,
  summarizeEvents,
} from '../session-summary.js';
import { Connection, type Transaction } from './connection.js';
import { resolveOptions, type IndexedDbStorageOptions, type ResolvedOptions } from './options.js';
import { readRecord } from './records.js';
import type { AgentDB } from './schema.js';
import { toStorageError } from './storage-error.js';
import { WriteQueue } from './write-queue.js';

/** A queued change: append `event`, or delete the session when `event` is `null`. */
interface Write {
  sessionId: string;
  event: SessionEvent | null;
}

/** What a write batch needs to know about a session. */
interface SessionState {
  summary: SessionSummary | null;
  nextSeq: number;
  changed: boolean;
}

type EventStore = ReturnType<Transaction<['events'], IDBTransactionMode>['objectStore']>;

const SessionIdSchema = z.string().check(z.minLength(1));

/** Every key `[sessionId, seq]` of one session. */
const sessionRange = (sessionId: string) => IDBKeyRange.bound([sessionId, 0], [sessionId, Infinity]);

/** A deep copy of `event`; a value IndexedDB cannot store (a function, say) → `INVALID_INPUT`. */
function cloneForStorage(event: SessionEvent): SessionEvent {
  try {
    return structuredClone(event);
  } catch (error) {
    throw Errors.invalidInput(`event cannot be stored: ${describeError(error)}`, error);
  }
}

/** Keeps a request's promise from being reported as unhandled: the transaction reports failures. */
const quiet = (request: Promise<unknown>): void => void request.catch(() => undefined);

/**
 * Sessions in IndexedDB. Calls to `saveEvent` made in the same tick, or while a
 * write is in flight, are written together in one transaction, in call order; each call
 * resolves once its transaction has committed. A failed write rejects with `STORAGE_ERROR`
 * (quota exceeded, blocked upgrade, closed database) and leaves what was stored before intact.
 * Corrupt records read back are reported through `options.onCorruptRecord` and skipped.
 *
 * @example
 * const storage = new IndexedDbSessionStorage({ dbName: 'my-app' });
 * const agent = await new AgentBuilder(config).registerModelProvider(provider)
 *   .registerSessionStorage(storage).build();
 */
export class IndexedDbSessionStorage implements SessionStorage {
  readonly #options: ResolvedOptions;
  readonly #connection: Connection;
  readonly #writes = new WriteQueue<Write>((batch) => this.#writeBatch(batch));

  /** Touches nothing yet: the database opens on first use. Bad options → `INVALID_INPUT`. */
  constructor(options?: IndexedDbStorageOptions) {
    this.#options = resolveOptions(options);
    this.#connection = new Connection(this.#options);
  }

  /** Appends `event` to the session and updates its summary, in one transaction. */
  async saveEvent(sessionId: string, event: SessionEvent): Promise<void> {
    const id = parseInput(SessionIdSchema, sessionId, 'sessionId');
    // Copied now: the write happens a little later, and the caller may change its object meanwhile.
    const copy = cloneForStorage(parseInput(SessionEventSchema, event, 'event'));
    await this.#writes.push({ sessionId: id, event: copy });
  }

  /** The session's valid events in append order, or `null` if the session is unknown. */
  async loadSession(sessionId: string): Promise<SessionEvent[] | null> {
    const id = parseInput(SessionIdSchema, sessionId, 'sessionId');
    return this.#read('loading a session', ['sessions', 'events'], async (tx) => {
      const [events, known] = await Promise.all([
        this.#readEvents(tx.objectStore('events'), id),
        tx.objectStore('sessions').getKey(id),
      ]);
      return events.length === 0 && known === undefined ? null : events;
    });
  }

  /** One page of sessions, newest update first; pass the page's `nextCursor` to continue. */
  async listSessions(cursor: string | null, limit: number): Promise<SessionPage> {
    const { after, limit: max } = parsePageRequest(cursor, limit);
    return this.#read('listing sessions', ['sessions'], async (tx) => {
      const range = after ? IDBKeyRange.upperBound([after.updatedAt, after.id], true) : null;
      const sessions: SessionSummary[] = [];
      let more = false;
      let c = await tx.objectStore('sessions').index('byUpdate').openCursor(range, 'prev');
      for (; c; c = await c.continue()) {
        const summary = this.#summary(c.value, c.primaryKey);
        if (!summary) continue;
        if (sessions.length === max) {
          more = true;
          break;
        }
        sessions.push(summary);
      }
      const last = sessions.at(-1);
      return { sessions, nextCursor: more && last ? encodeCursor(last) : null };
    });
  }

  /** Sessions whose title or message text contains `query` (case-insensitive), newest first. */
  async findSessions(query: string): Promise<SessionSummary[]> {
    const needle = normalizeQuery(parseInput(z.string(), query, 'query'));
    if (needle === '') return [];
    return this.#read('searching sessions', ['sessions', 'events'], async (tx) => {
      const summaries: SessionSummary[] = [];
      for (const record of await tx.objectStore('sessions').index('byUpdate').getAll()) {
        const summary = this.#summary(record, (record as { id: string }).id);
        if (summary) summaries.push(summary);
      }
      summaries.reverse();
      const found = new Set(summaries.filter((s) => matchesQuery(s.title, needle)).map((s) => s.id));
      // One pass over all events; a session already found is skipped past in one step.
      let c = await tx.objectStore('events').openCursor();
      while (c) {
        const [sessionId, seq] = c.primaryKey;
        if (found.has(sessionId)) {
          c = await c.continue([sessionId, Infinity]);
          continue;
        }
        const event = this.#event(c.value, sessionId, seq);
        if (event && matchesQuery(searchableText(event), needle)) found.add(sessionId);
        c = await c.continue();
      }
      return summaries.filter((s) => found.has(s.id));
    });
  }

  /** Removes the session's summary and all its events, in one transaction. */
  async deleteSession(sessionId: string): Promise<void> {
    // Through the write queue, so it is ordered with the saves around it.
    await this.#writes.push({
      sessionId: parseInput(SessionIdSchema, sessionId, 'sessionId'),
      event: null,
    });
  }

  /** Waits for pending writes, then closes the database connection; a later call reopens it. */
  async close(): Promise<void> {
    await this.#writes.settled();
    await this.#connection.close();
  }

  async #writeBatch(batch: Write[]): Promise<void> {
    const tx = await this.#connection.transaction(['sessions', 'events'], 'readwrite');
    const done = tx.done;
    try {
      const sessions = tx.objectStore('sessions');
      const events = tx.objectStore('events');
      const ids = [...new Set(batch.map((write) => write.sessionId))];
      const states = await Promise.all(ids.map((id) => this.#stateOf(tx, id)));
      const byId = new Map(ids.map((id, i) => [id, states[i]!]));
      for (const { sessionId, event } of batch) {
        const state = byId.get(sessionId)!;
        if (event === null) {
          quiet(events.delete(sessionRange(sessionId)));
          quiet(sessions.delete(sessionId));
          byId.set(sessionId, { summary: null, nextSeq: 0, changed: false });
        } else {
          // `add`, not `put`: a key collision aborts the batch instead of overwriting an event.
          quiet(events.add({ sessionId, seq: state.nextSeq, event }));
          state.summary = applyEventToSummary(state.summary, sessionId, event);
          state.nextSeq++;
          state.changed = true;
        }
      }
      for (const { summary, changed } of byId.values()) if (summary && changed) quiet(sessions.put(summary));
      await done;
    } catch (error) {
      try {
        tx.abort();
      } catch {
        // Already finished or aborted: `done` carries the reason.
      }
      await done.catch(() => undefined);
      throw toStorageError('saving session events', tx.error ?? error);
    }
  }

  /** The session's summary and next sequence number, read inside the write transaction. */
  async #stateOf(
    tx: Transaction<['sessions', 'events'], 'readwrite'>,
    sessionId: string,
  ): Promise<SessionState> {
    const events = tx.objectStore('events');
    const [stored, last] = await Promise.all([
      tx.objectStore('sessions').get(sessionId),
      events.openKeyCursor(sessionRange(sessionId), 'prev'),
    ]);
    // The sequence continues after the last stored key, valid or not, so nothing is overwritten.
    const nextSeq = last ? last.primaryKey[1] + 1 : 0;
    let summary = stored === undefined ? null : (this.#summary(stored, sessionId) ?? null);
    // A lost or corrupt summary is rebuilt from the events.
    if (!summary && last) summary = summarizeEvents(sessionId, await this.#readEvents(events, sessionId));
    return { summary, nextSeq, changed: false };
  }

  async #readEvents(store: EventStore, sessionId: string): Promise<SessionEvent[]> {
    const events: SessionEvent[] = [];
    for (const record of await store.getAll(sessionRange(sessionId))) {
      const event = this.#event(record, sessionId, record.seq);
      if (event) events.push(event);
    }
    return events;
  }

  #event(record: AgentDB['events']['value'], sessionId: string, seq: number): SessionEvent | undefined {
    const report = this.#options.onCorruptRecord;
    return readRecord(SessionEventSchema, record.event, 'events', [sessionId, seq], report);
  }

  #summary(value: unknown, key: IDBValidKey): SessionSummary | undefined {
    return readRecord(SessionSummarySchema, value, 'sessions', key, this.#options.onCorruptRecord);
  }

  /** Runs a read after the writes queued before it (read-your-writes), as a `STORAGE_ERROR` on failure. */
  async #read<S extends ('sessions' | 'events')[], T>(
    action: string,
    stores: S,
    read: (tx: Transaction<S, 'readonly'>) => Promise<T>,
  ): Promise<T> {
    await this.#writes.settled();
    try {
      const tx = await this.#connection.transaction(stores, 'readonly');
      const [result] = await Promise.all([read(tx), tx.done]);
      return result;
    } catch (error) {
      throw toStorageError(action, error);
    }
  }
}
