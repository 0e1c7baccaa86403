/**
 * `SessionStorage` on IndexedDB: summaries and events in one database, writes batched into few
 * transactions, writers fenced by an epoch checked inside the write transaction, drafts kept
 * beside the sessions, every record validated when read back.
 * @module
 */
import * as z from 'zod/mini';
import { copyForStorage } from '../../copy-data.js';
import * as Errors from '../../error-constructors.js';
import type { SaveEventOptions, SessionDraft, SessionStorage } from '../../ports/storage.js';
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
import {
  nextEpoch,
  parseDraft,
  parseWriterEpoch,
  SessionDraftSchema,
  staleWriteError,
  StoredEpochSchema,
} from '../writer-fencing.js';
import { Connection, type Transaction } from './connection.js';
import { resolveOptions, type IndexedDbStorageOptions, type ResolvedOptions } from './options.js';
import { readRecord } from './records.js';
import { EPOCH_COUNTER_KEY, type AgentDB, type StoreName } from './schema.js';
import { toStorageError } from './storage-error.js';
import { WriteQueue, type BatchOutcome } from './write-queue.js';

/**
 * A queued change, applied in call order: append an event (checked against the writer epoch
 * when it carries one), delete a session, claim a session's writer (the batch fills in `epoch`),
 * or keep or clear a draft.
 */
type Write =
  | { kind: 'event'; sessionId: string; event: SessionEvent; writerEpoch: number | undefined }
  | { kind: 'delete'; sessionId: string }
  | { kind: 'claim'; sessionId: string; epoch?: number }
  | { kind: 'draft'; sessionId: string; draft: SessionDraft | null };

/** What a write batch needs to know about a session it appends to. */
interface SessionState {
  summary: SessionSummary | null;
  nextSeq: number;
  changed: boolean;
}

/** A write batch's transaction, typed over every store a batch may touch. */
type WriteStores = ['sessions', 'events', 'writers', 'drafts'];
type WriteTransaction = Transaction<WriteStores, 'readwrite'>;

/** The stores each kind of write touches. */
function storesOf(write: Write): StoreName[] {
  switch (write.kind) {
    case 'event':
      return write.writerEpoch === undefined ? ['sessions', 'events'] : ['sessions', 'events', 'writers'];
    case 'delete':
      return ['sessions', 'events', 'writers', 'drafts'];
    case 'claim':
      return ['writers'];
    case 'draft':
      return ['drafts'];
  }
}

/**
 * The stores a batch touches, and no more: an unfenced burst of events locks the same two
 * stores as before fencing existed, and a draft checkpoint does not hold up reads of events.
 */
function storesOfBatch(batch: readonly Write[]): WriteStores {
  const stores = new Set(batch.flatMap(storesOf));
  return (['sessions', 'events', 'writers', 'drafts'] as const).filter((s) => stores.has(s)) as WriteStores;
}
type EventStore = ReturnType<Transaction<['events'], IDBTransactionMode>['objectStore']>;

const SessionIdSchema = z.string().check(z.minLength(1));

/** Every key `[sessionId, seq]` of one session. */
const sessionRange = (sessionId: string) => IDBKeyRange.bound([sessionId, 0], [sessionId, Infinity]);

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
  /** The database name: every tab on the same database shares its locks and change channel. */
  readonly namespace: string;
  readonly #options: ResolvedOptions;
  readonly #connection: Connection;
  readonly #writes = new WriteQueue<Write>((batch) => this.#writeBatch(batch));

  /** Touches nothing yet: the database opens on first use. Bad options → `INVALID_INPUT`. */
  constructor(options?: IndexedDbStorageOptions) {
    this.#options = resolveOptions(options);
    this.namespace = this.#options.dbName;
    this.#connection = new Connection(this.#options);
  }

  /**
   * Appends `event` to the session and updates its summary, in one transaction. With
   * `options.writerEpoch`, the same transaction first checks that epoch is still the session's
   * current one; if another writer claimed the session since, this write alone is refused
   * (`STORAGE_ERROR`, cause `SESSION_WRITER_REPLACED`) and nothing of it is stored.
   */
  async saveEvent(sessionId: string, event: SessionEvent, options?: SaveEventOptions): Promise<void> {
    const id = parseInput(SessionIdSchema, sessionId, 'sessionId');
    // Copied now: the write happens a little later, and the caller may change its object meanwhile.
    const copy = copyForStorage(parseInput(SessionEventSchema, event, 'event'), 'event');
    const writerEpoch = parseWriterEpoch(options);
    await this.#writes.push({ kind: 'event', sessionId: id, event: copy, writerEpoch });
  }

  /**
   * Makes the caller the session's only writer and returns its epoch, greater than any epoch
   * this database handed out before. The session need not exist yet.
   */
  async claimWriter(sessionId: string): Promise<number> {
    const claim: Write = { kind: 'claim', sessionId: parseInput(SessionIdSchema, sessionId, 'sessionId') };
    await this.#writes.push(claim);
    return claim.epoch!;
  }

  /** Keeps the running turn's streamed text, replacing the previous draft; `null` clears it. */
  async saveDraft(sessionId: string, draft: SessionDraft | null): Promise<void> {
    const id = parseInput(SessionIdSchema, sessionId, 'sessionId');
    await this.#writes.push({ kind: 'draft', sessionId: id, draft: parseDraft(draft) });
  }

  /** The draft last saved for the session, or `null` (also for a corrupt one, which is reported). */
  async loadDraft(sessionId: string): Promise<SessionDraft | null> {
    const id = parseInput(SessionIdSchema, sessionId, 'sessionId');
    return this.#read('loading a draft', ['drafts'], async (tx) => {
      const stored = await tx.objectStore('drafts').get(id);
      if (stored === undefined) return null;
      return readRecord(SessionDraftSchema, stored, 'drafts', id, this.#options.onCorruptRecord) ?? null;
    });
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

  /** The session's summary, or `null` if there is no such session (its events are not read). */
  async loadSummary(sessionId: string): Promise<SessionSummary | null> {
    const id = parseInput(SessionIdSchema, sessionId, 'sessionId');
    return this.#read('loading a summary', ['sessions'], async (tx) => {
      const record: unknown = await tx.objectStore('sessions').get(id);
      return record === undefined ? null : (this.#summary(record, id) ?? null);
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

  /** Removes the session's summary, events, draft and writer claim, in one transaction. */
  async deleteSession(sessionId: string): Promise<void> {
    // Through the write queue, so it is ordered with the saves around it.
    await this.#writes.push({
      kind: 'delete',
      sessionId: parseInput(SessionIdSchema, sessionId, 'sessionId'),
    });
  }

  /** Waits for pending writes, then closes the database connection; a later call reopens it. */
  async close(): Promise<void> {
    await this.#writes.settled();
    await this.#connection.close();
  }

  async #writeBatch(batch: Write[]): Promise<BatchOutcome> {
    // Typed over every store; only the ones the batch's writes use are in its scope.
    const tx = await this.#connection.transaction(storesOfBatch(batch), 'readwrite');
    const done = tx.done;
    try {
      const refused = await this.#applyBatch(tx, batch);
      await done;
      return refused;
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

  /**
   * Applies the batch's writes in call order; returns, per write, the error of a stale write
   * (refused on its own, the rest is stored) or `undefined`.
   */
  async #applyBatch(tx: WriteTransaction, batch: Write[]): Promise<unknown[]> {
    // Looked up when used: a store outside the batch's scope would throw.
    const sessions = () => tx.objectStore('sessions');
    const events = () => tx.objectStore('events');
    const writers = () => tx.objectStore('writers');
    const drafts = () => tx.objectStore('drafts');
    const { states, epochs, counter } = await this.#readBatchState(tx, batch);
    let epochCounter = counter;
    const refused: unknown[] = [];
    batch.forEach((write, i) => {
      const { sessionId } = write;
      switch (write.kind) {
        case 'event': {
          const stale = staleWriteError(sessionId, write.writerEpoch, epochs.get(sessionId));
          if (stale) {
            refused[i] = stale;
            return;
          }
          const state = states.get(sessionId)!;
          // `add`, not `put`: a key collision aborts the batch instead of overwriting an event.
          quiet(events().add({ sessionId, seq: state.nextSeq, event: write.event }));
          state.summary = applyEventToSummary(state.summary, sessionId, write.event);
          state.nextSeq++;
          state.changed = true;
          return;
        }
        case 'delete':
          quiet(events().delete(sessionRange(sessionId)));
          quiet(sessions().delete(sessionId));
          quiet(drafts().delete(sessionId));
          quiet(writers().delete(sessionId));
          if (states.has(sessionId)) states.set(sessionId, { summary: null, nextSeq: 0, changed: false });
          epochs.set(sessionId, undefined);
          return;
        case 'claim': {
          const epoch = nextEpoch(epochCounter, epochs.get(sessionId));
          epochCounter = epoch;
          epochs.set(sessionId, epoch);
          quiet(writers().put(epoch, sessionId));
          write.epoch = epoch;
          return;
        }
        case 'draft':
          quiet(write.draft === null ? drafts().delete(sessionId) : drafts().put(write.draft, sessionId));
          return;
      }
    });
    for (const { summary, changed } of states.values())
      if (summary && changed) quiet(sessions().put(summary));
    if (epochCounter !== counter) quiet(writers().put(epochCounter, EPOCH_COUNTER_KEY));
    return refused;
  }

  /**
   * What the batch's writes depend on, read inside its transaction: the summary and next
   * sequence number of each session it appends to, and the writer epochs (and the epoch counter)
   * only when one of its writes carries an epoch or claims one, so unfenced writes read nothing
   * more than before.
   */
  async #readBatchState(tx: WriteTransaction, batch: Write[]) {
    const appended = new Set<string>();
    const fenced = new Set<string>();
    let claims = false;
    for (const write of batch) {
      if (write.kind === 'event') appended.add(write.sessionId);
      if ((write.kind === 'event' && write.writerEpoch !== undefined) || write.kind === 'claim')
        fenced.add(write.sessionId);
      if (write.kind === 'claim') claims = true;
    }
    const writers = () => tx.objectStore('writers');
    const [states, epochs, counter] = await Promise.all([
      Promise.all([...appended].map(async (id) => [id, await this.#stateOf(tx, id)] as const)),
      Promise.all([...fenced].map(async (id) => [id, this.#epoch(await writers().get(id), id)] as const)),
      claims
        ? writers()
            .get(EPOCH_COUNTER_KEY)
            .then((v) => this.#epoch(v, EPOCH_COUNTER_KEY) ?? 0)
        : 0,
    ]);
    return { states: new Map(states), epochs: new Map<string, number | undefined>(epochs), counter };
  }

  /** A stored epoch, `undefined` when there is none or it is corrupt (reported). */
  #epoch(value: unknown, key: string | typeof EPOCH_COUNTER_KEY): number | undefined {
    if (value === undefined) return undefined;
    return readRecord(StoredEpochSchema, value, 'writers', key, this.#options.onCorruptRecord);
  }

  /** The session's summary and next sequence number, read inside the write transaction. */
  async #stateOf(tx: WriteTransaction, sessionId: string): Promise<SessionState> {
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
  async #read<S extends StoreName[], T>(
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
