/**
 * {@link PostgresSessionLock}: one writer per session across processes, as a lease in the
 * database that its holder renews while it holds it.
 * @module
 */
import type { Observable, Subscription } from 'rxjs';
import * as z from 'zod/mini';
import { integer } from '../vocabulary/checks.js';
import { generateId } from '../ids.js';
import type { LockLease, LockMode, SettlingLock, TurnAwareLock } from '../ports/session-lock.js';
import type { SessionChange } from '../sync/session-change-feed.js';
import { parseInput } from '../validate.js';
import { ChangeFeed } from './change-feed.js';
import { HeldLease } from './held-lease.js';
import { sharedSchema, type SharedSchema } from './shared-schema.js';
import {
  changeChannel,
  PostgresRunner,
  resolvePostgresOptions,
  storableKey,
  type PostgresOptions,
} from './options.js';

/** Options of {@link PostgresSessionLock}. */
export interface PostgresSessionLockOptions extends PostgresOptions {
  /** How long a lease lasts without renewal (its holder renews every third of it). Default 10 000. */
  leaseMs?: number;
  /** Names this instance in the lock rows (e.g. a host name); default a random id. */
  holderId?: string;
}

const SessionIdSchema = storableKey('sessionId', { allowEmpty: false, max: 256 });
const ModeSchema = z.enum(['ifAvailable', 'wait', 'steal']);
const SignalSchema = z.optional(
  z.custom<AbortSignal>((value) => value instanceof AbortSignal, 'must be an AbortSignal'),
);
const LockOptionsSchema = z.object({
  leaseMs: z.optional(integer().check(z.minimum(30), z.maximum(86_400_000))),
  holderId: z.optional(storableKey('holderId', { allowEmpty: false, max: 256 })),
});
/** Longest pause between two tries of a `'wait'` (a release rings sooner, with `listen`). */
const WAIT_POLL_MS = 1_000;
/** The same without `listen`, when polling is all there is. */
const WAIT_POLL_NO_LISTEN_MS = 500;

/**
 * A {@link SessionLock} across processes: a lease per session in the `locks` table, renewed
 * every `leaseMs / 3` while held and expiring `leaseMs` after its holder stops renewing (a
 * crashed instance). `'steal'` takes it at once; the previous holder's `lost` settles within a
 * second (it hears the `NOTIFY`; with a `SqlClient` without `listen`, at its next renewal). A
 * holder that cannot renew (its database is unreachable) counts its lease as lost once it has
 * run out. `'wait'` takes it within a second of its release or expiry.
 *
 * Give the agent a {@link PostgresSessionStorage} too: the lease decides who may open a session,
 * and the storage's writer epoch refuses whatever a holder that lost its lease still writes.
 *
 * @example
 * const sql = pgClient(pool);
 * const agent = await new AgentBuilder({ defaultModel: 'gpt-4o-mini' })
 *   .registerModelProvider(provider)
 *   .registerSessionStorage(new PostgresSessionStorage({ sql }))
 *   .registerSessionLock(new PostgresSessionLock({ sql }))
 *   .build();
 */
export class PostgresSessionLock implements TurnAwareLock, SettlingLock {
  /** The name this instance writes into the lock rows it holds. */
  readonly holderId: string;
  /** How long a lease lasts without renewal. */
  readonly leaseMs: number;
  /**
   * What other instances do: `locked` when one takes a session's lease, `released` when one gives
   * it up. This lock's own leases are left out; `undefined` without `listen`. Never errors.
   */
  readonly changes: Observable<SessionChange> | undefined;
  readonly #runner: PostgresRunner;
  readonly #origin = generateId();
  readonly #held = new Set<HeldLease>();
  /** The releases whose statement has not answered yet. */
  readonly #releasing = new Set<Promise<void>>();
  /** Bells for any session (own ones included): a held lease checks whether it was taken. */
  readonly #watch: ChangeFeed | null;
  #watching: Subscription | null = null;
  #watchers = 0;
  readonly #waiters = new Map<string, Set<() => void>>();
  readonly #shared: SharedSchema;

  constructor(options: PostgresSessionLockOptions) {
    const { leaseMs, holderId, ...shared } = options ?? ({} as PostgresSessionLockOptions);
    const own = parseInput(LockOptionsSchema, { leaseMs, holderId }, 'PostgresSessionLock options');
    const resolved = resolvePostgresOptions(shared, 'PostgresSessionLock options');
    this.#runner = new PostgresRunner(resolved);
    this.#shared = sharedSchema(resolved.sql, resolved.schema);
    this.#shared.locked = true;
    this.leaseMs = own.leaseMs ?? 10_000;
    this.holderId = own.holderId ?? generateId();
    const bells = this.#shared.bells(this.#runner);
    this.#watch = resolved.sql.listen
      ? new ChangeFeed(bells, (bell) => (bell.t === 'l' ? this.#heard(bell.id) : null))
      : null;
    this.changes = resolved.sql.listen
      ? new ChangeFeed(bells, (bell) =>
          bell.t === 'l' && bell.o !== this.#origin ? this.#stateOf(bell.id) : null,
        ).observable
      : undefined;
  }

  /**
   * Takes the session's lease: `'ifAvailable'` resolves `null` while another holder's lease
   * lasts; `'wait'` tries again as soon as it is released or runs out (`signal` aborts it:
   * the promise rejects with the signal's reason); `'steal'` takes it at once.
   */
  async acquire(sessionId: string, mode: LockMode, signal?: AbortSignal): Promise<LockLease | null> {
    const id = parseInput(SessionIdSchema, sessionId, 'sessionId');
    const how = parseInput(ModeSchema, mode, 'mode');
    const abort = parseInput(SignalSchema, signal, 'signal');
    if (abort?.aborted) throw abort.reason;
    if (how !== 'wait') return this.#take(id, how === 'steal');
    this.#watchWhile(+1);
    try {
      for (;;) {
        const taken = await this.#take(id, false);
        if (taken) return taken;
        await this.#pause(id, abort);
      }
    } finally {
      this.#watchWhile(-1);
    }
  }

  /**
   * @internal Takes the lease unless another holder's live lease runs a turn (then `null`):
   * decided by the statement that takes it.
   */
  async acquireUnlessTurnRuns(sessionId: string): Promise<LockLease | null> {
    return this.#take(parseInput(SessionIdSchema, sessionId, 'sessionId'), 'unlessTurn');
  }

  /** @internal Whether someone holds the session's lease now, and the turn its holder runs. */
  async peek(sessionId: string): Promise<{ live: boolean; turnId: string | null }> {
    const id = parseInput(SessionIdSchema, sessionId, 'sessionId');
    const { rows } = await this.#runner.query<{ live: unknown; turn_id: unknown }>(
      `reading the lock of session '${id}'`,
      `SELECT lease_until > clock_timestamp() AS live, turn_id FROM ${this.#runner.table('locks')} WHERE session_id = $1`,
      [id],
    );
    const live = rows[0]?.live === true;
    const turnId = rows[0]?.turn_id;
    return { live, turnId: live && typeof turnId === 'string' ? turnId : null };
  }

  /**
   * One try: the lease, or `null` when another holder's lasts (`steal`: always the lease;
   * `unlessTurn`: unless that holder runs a turn).
   */
  async #take(sessionId: string, how: boolean | 'unlessTurn'): Promise<HeldLease | null> {
    const steal = how === true;
    const unlessTurn = how === 'unlessTurn';
    const token = generateId();
    const locks = this.#runner.table('locks');
    const startedAt = Date.now();
    const { rows } = await this.#runner.query<{ taken: number }>(
      `taking the lock of session '${sessionId}'`,
      `WITH up AS (
         INSERT INTO ${locks} AS l (session_id, token, holder, lease_until)
         VALUES ($1, $2, $3, clock_timestamp() + make_interval(secs => $4::double precision / 1000))
         ON CONFLICT (session_id) DO UPDATE
           SET token = EXCLUDED.token, holder = EXCLUDED.holder, lease_until = EXCLUDED.lease_until, turn_id = NULL
           ${steal ? '' : unlessTurn ? 'WHERE l.lease_until <= clock_timestamp() OR l.turn_id IS NULL' : 'WHERE l.lease_until <= clock_timestamp()'}
         RETURNING token
       ), bell AS (SELECT pg_notify($5, $6) FROM up)
       SELECT (SELECT count(*) FROM up)::integer AS taken, (SELECT count(*) FROM bell)::integer AS rung`,
      [
        sessionId,
        token,
        this.holderId,
        this.leaseMs,
        changeChannel(this.#runner.schema),
        this.#bell(sessionId),
      ],
    );
    if (Number(rows[0]?.taken) !== 1) return null;
    // A steal from a lease this instance holds: that one is lost now, without waiting for the bell.
    for (const lease of this.#held) if (lease.sessionId === sessionId) lease.lose();
    const lease = new HeldLease(sessionId, token, {
      leaseMs: this.leaseMs,
      renew: () => this.#renew(sessionId, token),
      markTurn: (turnId) => this.#markTurn(sessionId, token, turnId),
      release: () => this.#release(sessionId, token),
      ended: () => {
        this.#held.delete(lease);
        this.#shared.ended(sessionId, token);
        this.#watchWhile(-1);
      },
    }, startedAt);
    this.#held.add(lease);
    this.#shared.held(sessionId, token);
    this.#watchWhile(+1);
    // From the moment it has the lease, its holder hears a steal (not only at its next renewal).
    // A steal between the take and the start of listening rang before anyone listened: the row
    // says whether it happened.
    if (this.#watch) {
      await this.#watch.listening();
      await this.#stateOf(sessionId, (current) => {
        if (current !== token) lease.lose();
      }).catch(() => {}); // Unknown: the lease's own renewal tells soon enough.
    }
    return lease;
  }

  /** Whether the lease is still this token's (and now lasts `leaseMs` more). */
  async #renew(sessionId: string, token: string): Promise<boolean> {
    const { rowCount } = await this.#runner.query(
      `renewing the lock of session '${sessionId}'`,
      `UPDATE ${this.#runner.table('locks')}
       SET lease_until = clock_timestamp() + make_interval(secs => $3::double precision / 1000)
       WHERE session_id = $1 AND token = $2`,
      [sessionId, token, this.leaseMs],
    );
    return rowCount === 1;
  }

  async #markTurn(sessionId: string, token: string, turnId: string | null): Promise<void> {
    await this.#runner.query(
      `marking the turn of session '${sessionId}'`,
      `UPDATE ${this.#runner.table('locks')} SET turn_id = $3 WHERE session_id = $1 AND token = $2`,
      [sessionId, token, turnId],
    );
  }

  /**
   * @internal Settles once every release asked for so far reached the database (or failed):
   * `handler.close()` waits for it, so an instance that exits right after has given its leases
   * back instead of leaving them to run out.
   */
  async releasesSettled(): Promise<void> {
    await Promise.allSettled([...this.#releasing]);
  }

  #release(sessionId: string, token: string): Promise<void> {
    const releasing = this.#releaseNow(sessionId, token);
    const tracked = releasing.catch(() => {}).finally(() => this.#releasing.delete(tracked));
    this.#releasing.add(tracked);
    return releasing;
  }

  async #releaseNow(sessionId: string, token: string): Promise<void> {
    await this.#runner.query(
      `releasing the lock of session '${sessionId}'`,
      `WITH d AS (DELETE FROM ${this.#runner.table('locks')} WHERE session_id = $1 AND token = $2 RETURNING 1)
       SELECT pg_notify($3, $4) FROM d`,
      [sessionId, token, changeChannel(this.#runner.schema), this.#bell(sessionId)],
    );
  }

  /** Waits for a bell about the session, the poll interval, or the abort (which rejects). */
  #pause(sessionId: string, signal: AbortSignal | undefined): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      let waiters = this.#waiters.get(sessionId);
      if (!waiters) this.#waiters.set(sessionId, (waiters = new Set()));
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', aborted);
        waiters.delete(done);
        if (waiters.size === 0) this.#waiters.delete(sessionId);
      };
      const wake = () => {
        done();
        resolve();
      };
      const aborted = () => {
        done();
        reject(signal!.reason);
      };
      waiters.add(wake);
      const timer = setTimeout(wake, this.#watch ? WAIT_POLL_MS : WAIT_POLL_NO_LISTEN_MS);
      signal?.addEventListener('abort', aborted, { once: true });
    });
  }

  /** A bell about a session: wakes its waiters, and tells its held leases whether they were taken. */
  #heard(sessionId: string): Promise<SessionChange> {
    for (const wake of [...(this.#waiters.get(sessionId) ?? [])]) wake();
    return this.#stateOf(sessionId, (token) => {
      for (const lease of this.#held)
        if (lease.sessionId === sessionId && lease.token !== token) lease.lose();
    });
  }

  /** Whether someone holds the session's lease now, read from its row. */
  async #stateOf(sessionId: string, onToken?: (token: string | null) => void): Promise<SessionChange> {
    const { rows } = await this.#runner.query<{ token: unknown; live: unknown }>(
      `reading the lock of session '${sessionId}'`,
      `SELECT token, lease_until > clock_timestamp() AS live FROM ${this.#runner.table('locks')} WHERE session_id = $1`,
      [sessionId],
    );
    const row = rows[0];
    onToken?.(typeof row?.token === 'string' ? row.token : null);
    return { sessionId, kind: row?.live === true ? 'locked' : 'released' };
  }

  /** Listens for bells while a lease is held or a `'wait'` runs. */
  #watchWhile(delta: number): void {
    if (!this.#watch) return;
    this.#watchers += delta;
    if (this.#watchers > 0 && !this.#watching) this.#watching = this.#watch.observable.subscribe(() => {});
    if (this.#watchers === 0 && this.#watching) {
      this.#watching.unsubscribe();
      this.#watching = null;
    }
  }

  #bell(sessionId: string): string {
    return JSON.stringify({ t: 'l', id: sessionId, o: this.#origin });
  }
}
