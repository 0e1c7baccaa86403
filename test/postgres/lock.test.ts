/**
 * `PostgresSessionLock` across instances (two `pg` pools on one real server): leases that a steal
 * takes away, that run out when their holder stops renewing, and that a `'wait'` picks up.
 */
import { describe, expect, it } from 'vitest';
import type { SessionChange } from '../../src/index.js';
import { PostgresSessionLock, type PostgresSessionLockOptions, type SqlClient } from '../../src/postgres.js';
import { deferred } from '../support/waits.js';
import { expectAgentError } from '../support/errors.js';
import { crashable } from './support/crashable.js';
import { useDatabase } from './support/server.js';

const database = useDatabase();
let schemas = 0;

function locks(count: number, options: Partial<PostgresSessionLockOptions> = {}) {
  const schema = `lock_${++schemas}`;
  return Array.from({ length: count }, () => {
    const faulty = crashable(database.client().sql);
    return { lock: new PostgresSessionLock({ sql: faulty.sql, schema, ...options }), crash: faulty.crash };
  });
}

const settled = (promise: Promise<unknown>) => {
  let done = false;
  void promise.then(() => (done = true));
  return () => done;
};

describe('PostgresSessionLock', () => {
  it('one holder at a time: ifAvailable is null while held, and free again after release', async () => {
    const [a, b] = locks(2);
    const lease = await a!.lock.acquire('s1', 'ifAvailable');
    expect(lease).not.toBeNull();
    expect(await b!.lock.acquire('s1', 'ifAvailable')).toBeNull();
    expect(await a!.lock.acquire('s1', 'ifAvailable')).toBeNull(); // a second acquire of one instance too
    const other = await b!.lock.acquire('s2', 'ifAvailable');
    expect(other).not.toBeNull();
    lease!.release();
    lease!.release(); // idempotent
    await expect
      .poll(() => b!.lock.acquire('s1', 'ifAvailable').then((l) => (l?.release(), l !== null)))
      .toBe(true);
    other!.release();
  });

  it("a steal takes it at once and settles the old holder's lost (heard over NOTIFY)", async () => {
    const [a, b] = locks(2, { leaseMs: 60_000 }); // renewals cannot be what tells a
    const old = (await a!.lock.acquire('s1', 'ifAvailable'))!;
    const stolen = await b!.lock.acquire('s1', 'steal');
    expect(stolen).not.toBeNull();
    await old.lost;
    expect(await a!.lock.acquire('s1', 'ifAvailable')).toBeNull();
    stolen!.release();
  });

  it('without listen, the old holder learns of a steal at its next renewal', async () => {
    const schema = `lock_${++schemas}`;
    const quiet = crashable(database.client().sql, { withoutListen: true });
    const a = new PostgresSessionLock({ sql: quiet.sql, schema, leaseMs: 300 });
    expect(a.changes).toBeUndefined();
    const b = new PostgresSessionLock({ sql: database.client().sql, schema, leaseMs: 300 });
    const old = (await a.acquire('s1', 'ifAvailable'))!;
    const stolen = (await b.acquire('s1', 'steal'))!;
    await old.lost;
    stolen.release();
  });

  it('a holder that stops renewing (a crashed instance) is taken over after leaseMs', async () => {
    const [a, b] = locks(2, { leaseMs: 400 });
    const lease = (await a!.lock.acquire('s1', 'ifAvailable'))!;
    const lost = settled(lease.lost);
    a!.crash();
    expect(await b!.lock.acquire('s1', 'ifAvailable')).toBeNull(); // the lease still runs
    const taken = await b!.lock.acquire('s1', 'wait');
    expect(taken).not.toBeNull();
    // The crashed holder could not renew either: it counts its lease as lost.
    await lease.lost;
    expect(lost()).toBe(true);
    taken!.release();
  });

  it("'wait' takes the lease once the holder releases it; an aborted 'wait' rejects with the reason", async () => {
    const [a, b] = locks(2);
    const lease = (await a!.lock.acquire('s1', 'ifAvailable'))!;
    const waiting = b!.lock.acquire('s1', 'wait');
    const gotIt = settled(waiting);
    const controller = new AbortController();
    const aborted = b!.lock.acquire('s1', 'wait', controller.signal);
    controller.abort(new Error('user left'));
    await expect(aborted).rejects.toThrow('user left');
    expect(gotIt()).toBe(false);
    lease.release();
    const next = await waiting;
    expect(next).not.toBeNull();
    next!.release();
  });

  it("changes reports another instance's locked and released, and not its own", async () => {
    const [a, b] = locks(2);
    const seenByA: SessionChange[] = [];
    const seenByB: SessionChange[] = [];
    const subA = a!.lock.changes!.subscribe((c) => seenByA.push(c));
    const subB = b!.lock.changes!.subscribe((c) => seenByB.push(c));
    // Listening starts with the subscription: a first lease whose bell is heard shows it is on.
    await expect
      .poll(async () => {
        const probe = await b!.lock.acquire('probe', 'steal');
        probe?.release();
        return seenByA.some((c) => c.sessionId === 'probe');
      })
      .toBe(true);
    const lease = (await a!.lock.acquire('s1', 'ifAvailable'))!;
    await expect
      .poll(() => seenByB.filter((c) => c.sessionId === 's1'))
      .toEqual([{ sessionId: 's1', kind: 'locked' }]);
    lease.release();
    await expect
      .poll(() => seenByB.filter((c) => c.sessionId === 's1'))
      .toEqual([
        { sessionId: 's1', kind: 'locked' },
        { sessionId: 's1', kind: 'released' },
      ]);
    expect(seenByA.filter((c) => c.sessionId === 's1')).toEqual([]);
    subA.unsubscribe();
    subB.unsubscribe();
  });

  it('rejects bad input with INVALID_INPUT before any SQL', async () => {
    const [a] = locks(1);
    await expectAgentError(a!.lock.acquire('', 'ifAvailable'), 'INVALID_INPUT');
    await expectAgentError(a!.lock.acquire('s1', 'sometimes' as 'wait'), 'INVALID_INPUT');
    await expectAgentError(a!.lock.acquire('bad\u0000id', 'steal'), 'INVALID_INPUT');
    expect(() => new PostgresSessionLock({ sql: database.client().sql, leaseMs: -1 })).toThrow(/leaseMs/);
  });

  it('a steal made while the lock is being taken (before its holder listens) is heard at once', async () => {
    const schema = `lock_${++schemas}`;
    const inner = database.client().sql;
    const listenGate = deferred();
    const slowListen: SqlClient = {
      query: (text, params) => inner.query(text, params),
      transaction: (work) => inner.transaction(work),
      // The listening connection takes its time: the take lands before anyone listens.
      listen: async (channel, onNotify) => {
        await listenGate.promise;
        return inner.listen!(channel, onNotify);
      },
    };
    const a = new PostgresSessionLock({ sql: slowListen, schema, leaseMs: 60_000, holderId: 'A' });
    const b = new PostgresSessionLock({ sql: database.client().sql, schema, leaseMs: 60_000 });
    const taking = a.acquire('s1', 'ifAvailable');
    const pool = database.pool();
    await expect
      .poll(async () => (await pool.query(`SELECT holder FROM ${schema}.locks`).catch(() => ({ rows: [] }))).rows[0]?.holder)
      .toBe('A');
    const stolen = (await b.acquire('s1', 'steal'))!;
    listenGate.resolve();
    const lease = (await taking)!;
    // Renewals (every 20 s) cannot be what tells A: the take itself finds out.
    await lease.lost;
    stolen.release();
  });
});
