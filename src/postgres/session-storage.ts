/**
 * {@link PostgresSessionStorage}: sessions in PostgreSQL, shared by every device of a user and
 * every server instance on the database, with writers fenced in SQL.
 * @module
 */
import type { Observable } from 'rxjs';
import { Errors } from '../errors.js';
import { generateId } from '../ids.js';
import type { SaveEventOptions, SessionDraft, SessionStorage } from '../ports/storage.js';
import { parsePageRequest, encodeCursor } from '../storage/cursor.js';
import { normalizeQuery } from '../storage/session-summary.js';
import { parseDraft, parseWriterEpoch } from '../storage/writer-fencing.js';
import type { SessionChange } from '../sync/session-change-feed.js';
import { SessionEventSchema, type SessionEvent, type SessionPage, type SessionSummary } from '../types.js';
import { parseInput } from '../validate.js';
import { ChangeFeed } from './change-feed.js';
import {
  changeChannel,
  PostgresRunner,
  resolvePostgresOptions,
  storableKey,
  type PostgresOptions,
} from './options.js';
import {
  draftFromBody,
  eventFromBody,
  malformed,
  summaryFromRow,
  SUMMARY_COLUMNS,
  type SummaryRow,
} from './session-rows.js';
import { SessionWriter } from './session-writes.js';
import { sharedSchema, type SharedSchema } from './shared-schema.js';

/** Options of {@link PostgresSessionStorage}. */
export interface PostgresSessionStorageOptions extends PostgresOptions {
  /**
   * Partitions the sessions: a storage sees only its namespace's (load, list, find, delete,
   * claim, drafts). A server passes the user's id. Default `''`.
   */
  namespace?: string;
}

/** Longest session id and namespace, in UTF-16 units (a `NOTIFY` payload carries both). */
const MAX_KEY = 256;
const SessionIdSchema = storableKey('sessionId', { allowEmpty: false, max: MAX_KEY });
const NamespaceSchema = storableKey('namespace', { allowEmpty: true, max: MAX_KEY });
/** Most sessions one page holds, whatever `limit` asks (`nextCursor` leads on). */
const MAX_PAGE = 10_000;
/** Most sessions `findSessions` returns: the newest matches. */
export const MAX_FOUND = 1_000;

/**
 * A {@link SessionStorage} in PostgreSQL. It meets the whole storage contract (the suites of
 * `youyou-agent/testing`): events in call order with per-session sequence numbers 1, 2, 3 …
 * (a unique key makes a duplicate impossible), writer fencing checked by the statement that
 * inserts (`claimWriter`, `saveEvent(..., { writerEpoch })`), drafts, paging and search.
 *
 * With a `SqlClient` that can `listen`, {@link changes} reports what other instances do, and the
 * agent merges it into `agent.sessionChanges`.
 *
 * @example
 * import pg from 'pg';
 * const storage = new PostgresSessionStorage({ sql: pgClient(new pg.Pool()), namespace: userId });
 * const agent = await new AgentBuilder({ defaultModel: 'gpt-4o-mini' })
 *   .registerModelProvider(provider)
 *   .registerSessionStorage(storage)
 *   .build();
 */
export class PostgresSessionStorage implements SessionStorage {
  /**
   * Names this storage's change channel (and, in a browser, its Web Locks):
   * `postgres:<schema>:<namespace>`, the same for every instance over the same sessions.
   */
  readonly namespace: string;
  /**
   * What other instances (other processes, other storage objects) do to this namespace's
   * sessions: `appended` after their writes commit, `deleted`. This storage's own writes are
   * left out. A `NOTIFY` only rings the bell: the session's row says what changed. `undefined`
   * when the `SqlClient` cannot `listen`. Listening starts with the first subscriber and stops
   * with the last; it never errors (a broken listening connection is re-opened by the client,
   * and what happened meanwhile is not reported).
   */
  readonly changes: Observable<SessionChange> | undefined;
  readonly #runner: PostgresRunner;
  readonly #namespace: string;
  readonly #writer: SessionWriter;
  readonly #shared: SharedSchema;
  /** Tags this storage's doorbells, so that its own feed leaves them out. */
  readonly #origin = generateId();

  constructor(options: PostgresSessionStorageOptions) {
    const { namespace = '', ...shared } = options ?? ({} as PostgresSessionStorageOptions);
    this.#namespace = parseInput(NamespaceSchema, namespace, 'namespace');
    const resolved = resolvePostgresOptions(shared, 'PostgresSessionStorage options');
    this.#runner = new PostgresRunner(resolved);
    this.#shared = sharedSchema(resolved.sql, resolved.schema);
    this.namespace = `postgres:${resolved.schema}:${this.#namespace}`;
    const origin = this.#origin;
    this.#writer = new SessionWriter(this.#runner, this.#namespace, origin);
    this.changes = resolved.sql.listen
      ? new ChangeFeed(this.#shared.bells(this.#runner), (bell) =>
          bell.t === 's' && bell.ns === this.#namespace && bell.o !== origin
            ? this.#whatChanged(bell.id)
            : null,
        ).observable
      : undefined;
  }

  /**
   * Appends `event`, in call order, as the session's next sequence number (creating the session
   * on its first event). With `options.writerEpoch`, refused (`STORAGE_ERROR`, cause
   * `SESSION_WRITER_REPLACED`) unless that is the session's current epoch — checked by the
   * statement that inserts.
   */
  async saveEvent(sessionId: string, event: SessionEvent, options?: SaveEventOptions): Promise<void> {
    const id = parseInput(SessionIdSchema, sessionId, 'sessionId');
    const valid = parseInput(SessionEventSchema, event, 'event');
    const epoch = parseWriterEpoch(options);
    return this.#writer.append(id, valid, epoch);
  }

  /** The session's events in sequence order, or `null` if there is no such session. */
  async loadSession(sessionId: string): Promise<SessionEvent[] | null> {
    const id = parseInput(SessionIdSchema, sessionId, 'sessionId');
    const { rows } = await this.#runner.query<{ event_count: unknown; seq: unknown; body: unknown }>(
      `loading session '${id}'`,
      `SELECT s.event_count, e.seq, e.body FROM ${this.#runner.table('sessions')} s
       LEFT JOIN ${this.#runner.table('events')} e ON e.namespace = s.namespace AND e.session_id = s.id
       WHERE s.namespace = $1 AND s.id = $2 AND s.event_count > 0 ORDER BY e.seq`,
      [this.#namespace, id],
    );
    if (rows.length === 0) return null;
    // The numbers are 1, 2, 3 … up to the count: anything else means rows went missing.
    if (Number(rows[0]!.event_count) !== rows.length) throw malformed(`the events of session '${id}'`);
    return rows.map((row, index) => {
      if (Number(row.seq) !== index + 1) throw malformed(`the events of session '${id}'`);
      return eventFromBody(id, row.seq, row.body);
    });
  }

  /** The session's summary (its row, not its events), or `null` if there is no such session. */
  async loadSummary(sessionId: string): Promise<SessionSummary | null> {
    const id = parseInput(SessionIdSchema, sessionId, 'sessionId');
    const { rows } = await this.#runner.query<SummaryRow>(
      `loading the summary of session '${id}'`,
      `SELECT ${SUMMARY_COLUMNS} FROM ${this.#runner.table('sessions')}
       WHERE namespace = $1 AND id = $2 AND event_count > 0`,
      [this.#namespace, id],
    );
    return rows.length === 0 ? null : summaryFromRow(rows[0]!);
  }

  /** One page of sessions, newest update first (at most 10 000 per page, whatever `limit` says). */
  async listSessions(cursor: string | null, limit: number): Promise<SessionPage> {
    const request = parsePageRequest(cursor, limit);
    const take = Math.min(request.limit, MAX_PAGE);
    const after = request.after;
    const { rows } = await this.#runner.query<SummaryRow>(
      'listing sessions',
      `SELECT ${SUMMARY_COLUMNS} FROM ${this.#runner.table('sessions')}
       WHERE namespace = $1 AND event_count > 0 AND ($2::text IS NULL OR (updated_at, id) < ($2::text, $3::text))
       ORDER BY updated_at DESC, id DESC LIMIT $4`,
      [this.#namespace, after?.updatedAt ?? null, after?.id ?? null, take + 1],
    );
    const sessions = rows.slice(0, take).map(summaryFromRow);
    const last = sessions.at(-1);
    return { sessions, nextCursor: rows.length > take && last ? encodeCursor(last) : null };
  }

  /**
   * Sessions whose title or message text contains `query` (case-insensitive, any run of
   * whitespace matching any other), newest first; at most the 1 000 newest. A blank query
   * finds nothing.
   */
  async findSessions(query: string): Promise<SessionSummary[]> {
    if (typeof query !== 'string') throw Errors.invalidInput('query must be a string');
    const normalized = normalizeQuery(query).replace(/\u0000/g, '\uFFFD');
    if (normalized === '') return [];
    const pattern = `%${normalized.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
    // The title is the start of the first user message, whose text is searched already.
    const { rows } = await this.#runner.query<SummaryRow>(
      'searching sessions',
      `SELECT ${SUMMARY_COLUMNS} FROM ${this.#runner.table('sessions')} s
       WHERE s.namespace = $1 AND s.event_count > 0 AND EXISTS (
         SELECT 1 FROM ${this.#runner.table('events')} e
         WHERE e.namespace = s.namespace AND e.session_id = s.id AND e.search_text LIKE $2 ESCAPE '\\')
       ORDER BY s.updated_at DESC, s.id DESC LIMIT $3`,
      [this.#namespace, pattern, MAX_FOUND],
    );
    return rows.map(summaryFromRow);
  }

  /** Removes the session, its events, draft and writer claim; a no-op for an unknown id. */
  async deleteSession(sessionId: string): Promise<void> {
    const id = parseInput(SessionIdSchema, sessionId, 'sessionId');
    await this.#runner.query(
      `deleting session '${id}'`,
      `WITH d AS (DELETE FROM ${this.#runner.table('drafts')} WHERE namespace = $1 AND session_id = $2),
       s AS (DELETE FROM ${this.#runner.table('sessions')} WHERE namespace = $1 AND id = $2 RETURNING event_count)
       SELECT pg_notify($3, $4) FROM s WHERE s.event_count > 0`,
      [this.#namespace, id, changeChannel(this.#runner.schema), this.#bell(id)],
    );
  }

  /**
   * Makes the caller the session's only writer (the session need not exist yet) and returns its
   * epoch: a database sequence, so greater than any epoch handed out before, by any instance.
   * With a `PostgresSessionLock` on the same `sql` and `schema`, the claim is refused
   * (`SESSION_LOCKED`) unless that lock holds the session's lease and the lease is live, checked
   * by the statement that claims: a late claim never fences out the live writer.
   */
  async claimWriter(sessionId: string): Promise<number> {
    const id = parseInput(SessionIdSchema, sessionId, 'sessionId');
    const sessions = this.#runner.table('sessions');
    const epochs = this.#runner.table('writer_epochs');
    const token = this.#shared.locked ? this.#shared.tokenOf(id) : null;
    if (this.#shared.locked && token === null) throw Errors.sessionLocked(id);
    const { rows } = await this.#runner.query<{ writer_epoch: unknown }>(
      `claiming session '${id}'`,
      token === null
        ? `INSERT INTO ${sessions} AS t (namespace, id, writer_epoch) VALUES ($1, $2, nextval('${epochs}'))
           ON CONFLICT (namespace, id) DO UPDATE SET writer_epoch = EXCLUDED.writer_epoch
           RETURNING writer_epoch`
        : `INSERT INTO ${sessions} AS t (namespace, id, writer_epoch)
           SELECT $1, $2, nextval('${epochs}') WHERE EXISTS (
             SELECT 1 FROM ${this.#runner.table('locks')}
             WHERE session_id = $2 AND token = $3 AND lease_until > clock_timestamp())
           ON CONFLICT (namespace, id) DO UPDATE SET writer_epoch = EXCLUDED.writer_epoch
           RETURNING writer_epoch`,
      token === null ? [this.#namespace, id] : [this.#namespace, id, token],
    );
    if (rows.length === 0) throw Errors.sessionLocked(id);
    const epoch = Number(rows[0]?.writer_epoch);
    if (!Number.isSafeInteger(epoch) || epoch < 0) throw malformed(`the writer epoch of session '${id}'`);
    return epoch;
  }

  /** Keeps the running turn's streamed text (replacing the previous draft); `null` clears it. */
  async saveDraft(sessionId: string, draft: SessionDraft | null): Promise<void> {
    const id = parseInput(SessionIdSchema, sessionId, 'sessionId');
    const valid = parseDraft(draft);
    const drafts = this.#runner.table('drafts');
    if (valid === null) {
      await this.#runner.query(
        `clearing the draft of session '${id}'`,
        `DELETE FROM ${drafts} WHERE namespace = $1 AND session_id = $2`,
        [this.#namespace, id],
      );
      return;
    }
    await this.#runner.query(
      `saving the draft of session '${id}'`,
      `INSERT INTO ${drafts} (namespace, session_id, body) VALUES ($1, $2, $3)
       ON CONFLICT (namespace, session_id) DO UPDATE SET body = EXCLUDED.body`,
      [this.#namespace, id, JSON.stringify(valid)],
    );
  }

  /** The draft last saved for the session, or `null`. */
  async loadDraft(sessionId: string): Promise<SessionDraft | null> {
    const id = parseInput(SessionIdSchema, sessionId, 'sessionId');
    const { rows } = await this.#runner.query<{ body: unknown }>(
      `loading the draft of session '${id}'`,
      `SELECT body FROM ${this.#runner.table('drafts')} WHERE namespace = $1 AND session_id = $2`,
      [this.#namespace, id],
    );
    return rows.length === 0 ? null : draftFromBody(id, rows[0]!.body);
  }

  #bell(sessionId: string): string {
    return JSON.stringify({ t: 's', ns: this.#namespace, id: sessionId, o: this.#origin });
  }

  /** What a doorbell for `sessionId` means, read from its row: appended, or deleted when it is gone. */
  async #whatChanged(sessionId: string): Promise<SessionChange> {
    const { rows } = await this.#runner.query<{ event_count: unknown }>(
      `reading session '${sessionId}'`,
      `SELECT event_count FROM ${this.#runner.table('sessions')} WHERE namespace = $1 AND id = $2`,
      [this.#namespace, sessionId],
    );
    const count = Number(rows[0]?.event_count ?? 0);
    return { sessionId, kind: count > 0 ? 'appended' : 'deleted' };
  }
}
