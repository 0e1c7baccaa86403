/**
 * The write path of `PostgresSessionStorage`: a queue per session that keeps call order (the
 * runtime hands a burst of `saveEvent` calls over without waiting), and stores what is queued
 * in as few statements as it can. Each statement is one atomic `WITH … UPDATE … INSERT`: the
 * writer epoch is checked by the same statement that takes the session's sequence numbers and
 * inserts the events, so a stale writer never lands a row, and the session row's lock orders
 * concurrent writers (from any process) so numbers are never taken twice.
 * @module
 */
import { Errors } from '../errors.js';
import { TURN_ENDED_KEY, TURN_STARTED_KEY } from '../persistence/metadata-keys.js';
import {
  applyEventToSummary,
  normalizeQuery,
  normalizeTimestamp,
  searchableText,
  stringField,
} from '../storage/session-summary.js';
import { staleWriteError } from '../storage/writer-fencing.js';
import type { SessionEvent, SessionSummary } from '../types.js';
import { changeChannel, sqlState, type PostgresRunner } from './options.js';

/** Most events one statement stores (a longer burst takes several). */
const MAX_BATCH = 500;
/** How often a statement that lost a race for a sequence number is tried again. */
const MAX_ATTEMPTS = 3;

interface QueuedEvent {
  event: SessionEvent;
  epoch: number | undefined;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/** Stands for "no session_config in this batch" (a model id is never this). */
const NO_MODEL = '\u0000';

/**
 * Queues and stores the events of one storage's sessions. `origin` tags its change
 * notifications, so that its own `changes` feed can leave them out.
 */
export class SessionWriter {
  readonly #runner: PostgresRunner;
  readonly #namespace: string;
  readonly #origin: string;
  readonly #queues = new Map<string, QueuedEvent[]>();

  constructor(runner: PostgresRunner, namespace: string, origin: string) {
    this.#runner = runner;
    this.#namespace = namespace;
    this.#origin = origin;
  }

  /** Resolves once `event` is stored after every event queued before it for the session. */
  append(sessionId: string, event: SessionEvent, epoch: number | undefined): Promise<void> {
    return new Promise((resolve, reject) => {
      const queue = this.#queues.get(sessionId);
      const item = { event, epoch, resolve, reject };
      if (queue) queue.push(item);
      else {
        this.#queues.set(sessionId, [item]);
        void this.#drain(sessionId);
      }
    });
  }

  async #drain(sessionId: string): Promise<void> {
    const queue = this.#queues.get(sessionId)!;
    while (queue.length > 0) {
      // A batch is a run of events with one epoch: a stale writer's events and its successor's
      // may be queued together, and each must be judged by its own epoch.
      const epoch = queue[0]!.epoch;
      let size = 1;
      while (size < queue.length && size < MAX_BATCH && queue[size]!.epoch === epoch) size++;
      const batch = queue.splice(0, size);
      try {
        await this.#store(
          sessionId,
          batch.map((item) => item.event),
          epoch,
        );
        for (const item of batch) item.resolve();
      } catch (error) {
        for (const item of batch) item.reject(error);
      }
    }
    this.#queues.delete(sessionId);
  }

  async #store(sessionId: string, events: readonly SessionEvent[], epoch: number | undefined): Promise<void> {
    const params = this.#params(sessionId, events, epoch);
    const text = epoch === undefined ? this.#upsertText() : this.#fencedText();
    for (let attempt = 1; ; attempt++) {
      try {
        const { rows } = await this.#runner.query<{ stored: number }>(
          `saving ${events.length} event(s) of session '${sessionId}'`,
          text,
          params,
        );
        const stored = Number(rows[0]?.stored ?? 0);
        if (stored === events.length) return;
        if (epoch !== undefined) {
          throw staleWriteError(sessionId, epoch, await this.#currentEpoch(sessionId)) ?? lostRace(sessionId);
        }
        throw Errors.storage(`postgres: session '${sessionId}': ${stored} of ${events.length} events stored`);
      } catch (error) {
        // A unique-key violation means another statement took these numbers first: take the next ones.
        if (sqlState(error) !== '23505' || attempt >= MAX_ATTEMPTS) throw error;
      }
    }
  }

  /** The session's epoch now (for the refusal's message); `undefined` when nobody holds a claim. */
  async #currentEpoch(sessionId: string): Promise<number | undefined> {
    const { rows } = await this.#runner.query<{ writer_epoch: unknown }>(
      `reading the writer of session '${sessionId}'`,
      `SELECT writer_epoch FROM ${this.#runner.table('sessions')} WHERE namespace = $1 AND id = $2`,
      [this.#namespace, sessionId],
    );
    const epoch = rows[0]?.writer_epoch;
    return epoch === null || epoch === undefined ? undefined : Number(epoch);
  }

  /**
   * The parameters of both statements: `$1`–`$13` the summary, events and bell, `$14` the owner,
   * `$15`–`$18` the open turn (see {@link openTurnOf}), then the epoch as `$19` for the fenced one.
   */
  #params(sessionId: string, events: readonly SessionEvent[], epoch: number | undefined): unknown[] {
    // The batch's effect on the summary: the shared fold over a blank start, merged with the
    // stored summary by the statement (first title wins, last model wins, counts add up).
    let delta: SessionSummary = {
      id: sessionId,
      title: '',
      modelId: NO_MODEL,
      createdAt: '',
      updatedAt: '',
      turnCount: 0,
      eventCount: 0,
    };
    for (const event of events) delta = applyEventToSummary(delta, sessionId, event);
    const first = applyEventToSummary(null, sessionId, events[0]!);
    const params: unknown[] = [
      this.#namespace,
      sessionId,
      JSON.stringify(delta.title),
      delta.modelId === NO_MODEL ? null : JSON.stringify(delta.modelId),
      first.createdAt,
      delta.updatedAt,
      delta.turnCount,
      events.length,
      events.map((event) => event.payload.type),
      events.map((event) => JSON.stringify(event)),
      // PostgreSQL text cannot hold U+0000: in the search text it stands as U+FFFD (and so it
      // does in a query, see findSessions).
      events.map((event) => normalizeQuery(searchableText(event)).replace(/\u0000/g, '\uFFFD')),
      changeChannel(this.#runner.schema),
      JSON.stringify({ t: 's', ns: this.#namespace, id: sessionId, o: this.#origin }),
      delta.owner ?? null,
      ...openTurnOf(events),
    ];
    if (epoch !== undefined) params.push(epoch);
    return params;
  }

  #upsertText(): string {
    const sessions = this.#runner.table('sessions');
    return `WITH s AS (
      INSERT INTO ${sessions} AS t (namespace, id, title, model_id, created_at, updated_at, turn_count, event_count,
        owner, open_turn_id, open_turn_since)
      VALUES ($1, $2, $3, COALESCE($4::text, '""'), $5, $6, $7, $8, $14::text,
        CASE WHEN $15::boolean THEN $16::text END, CASE WHEN $15::boolean THEN $17::text END)
      ON CONFLICT (namespace, id) DO UPDATE SET ${MERGE_SUMMARY}
      RETURNING t.event_count AS last
    ) ${INSERT_EVENTS(this.#runner.table('events'))}`;
  }

  #fencedText(): string {
    const sessions = this.#runner.table('sessions');
    // No row means no claim (never claimed, or deleted since): the write is refused.
    return `WITH s AS (
      UPDATE ${sessions} AS t SET ${MERGE_SUMMARY.replace(/EXCLUDED\.(\w+)/g, (_, column: string) => PARAM_OF[column]!)}
      WHERE t.namespace = $1 AND t.id = $2 AND t.writer_epoch = $19
      RETURNING t.event_count AS last
    ) ${INSERT_EVENTS(this.#runner.table('events'))}`;
  }
}

/** The stored summary merged with a batch's (`EXCLUDED` is the batch). */
const MERGE_SUMMARY = `
  title = CASE WHEN t.title = '""' THEN EXCLUDED.title ELSE t.title END,
  model_id = COALESCE($4::text, t.model_id),
  created_at = CASE WHEN t.event_count = 0 THEN EXCLUDED.created_at ELSE t.created_at END,
  updated_at = CASE WHEN t.event_count = 0 OR EXCLUDED.updated_at > t.updated_at
    THEN EXCLUDED.updated_at ELSE t.updated_at END,
  turn_count = t.turn_count + EXCLUDED.turn_count,
  event_count = t.event_count + EXCLUDED.event_count,
  owner = COALESCE(t.owner, $14::text),
  open_turn_id = CASE WHEN $15::boolean THEN $16::text WHEN t.open_turn_id = $18::text THEN NULL ELSE t.open_turn_id END,
  open_turn_since = CASE WHEN $15::boolean THEN $17::text WHEN t.open_turn_id = $18::text THEN NULL
    ELSE t.open_turn_since END`;

/** In the fenced `UPDATE` there is no `EXCLUDED` row: the batch's values are the parameters. */
const PARAM_OF: Record<string, string> = {
  title: '$3',
  created_at: '$5',
  updated_at: '$6',
  turn_count: '$7::integer',
  event_count: '$8::integer',
};

/**
 * The events inserted with the numbers the session row handed out (`last` is its new count), and
 * the doorbell rung once per stored batch (delivered at commit; a refused batch rings nothing).
 */
const INSERT_EVENTS = (events: string) => `, e AS (
      INSERT INTO ${events} (namespace, session_id, seq, type, body, search_text)
      SELECT $1, $2, s.last - $8::integer + x.n, x.type, x.body, x.search
      FROM s, unnest($9::text[], $10::text[], $11::text[]) WITH ORDINALITY AS x(type, body, search, n)
      RETURNING seq
    ), bell AS (SELECT pg_notify($12, $13) FROM s)
    SELECT (SELECT count(*) FROM e)::integer AS stored, (SELECT count(*) FROM bell)::integer AS rung`;

/**
 * What a batch does to the session's open turn, as `[started, openId, since, endedId]`: when it
 * holds a `turn_started`, the open turn is its last one (`openId`, `null` if a `turn_ended` of
 * it follows); else a `turn_ended` of the stored open turn (`endedId`) closes it.
 */
function openTurnOf(events: readonly SessionEvent[]): [boolean, string | null, string | null, string | null] {
  let started = false;
  let open: { id: string; since: string } | null = null;
  let ended: string | null = null;
  for (const event of events) {
    const { payload } = event;
    if (payload.type !== 'metadata') continue;
    const turnId = stringField(payload.value, 'turnId');
    if (turnId === undefined) continue;
    if (payload.key === TURN_STARTED_KEY) {
      started = true;
      open = { id: turnId, since: normalizeTimestamp(event.timestamp) };
    } else if (payload.key === TURN_ENDED_KEY) {
      if (open?.id === turnId) open = null;
      else if (!started) ended = turnId;
    }
  }
  return [started, open?.id ?? null, open?.since ?? null, ended];
}

function lostRace(sessionId: string) {
  return Errors.storage(`postgres: the events of session '${sessionId}' were not stored`);
}
