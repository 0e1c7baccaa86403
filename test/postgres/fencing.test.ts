/**
 * Writer fencing and sequence numbers across instances: two (or more) `pg` pools on one real
 * PostgreSQL database, each with its own `PostgresSessionStorage`, as separate server processes
 * would have them.
 */
import { describe, expect, it } from 'vitest';
import { AgentError, type SessionEvent } from '../../src/index.js';
import { PostgresSessionStorage } from '../../src/postgres.js';
import { useDatabase } from './support/server.js';

const database = useDatabase();
let schemas = 0;

/** `count` storages ("instances"), each on a pool of its own, over one fresh schema. */
function instances(count: number, namespace = 'user-1') {
  const schema = `fencing_${++schemas}`;
  return Array.from({ length: count }, () => {
    const { sql, pool } = database.client();
    return { storage: new PostgresSessionStorage({ sql, schema, namespace }), pool, schema };
  });
}

const note = (text: string): SessionEvent => ({
  timestamp: new Date(Date.UTC(2024, 0, 1)).toISOString(),
  payload: { type: 'system_message', content: text },
});
const texts = (events: SessionEvent[] | null) =>
  (events ?? []).map((e) => (e.payload.type === 'system_message' ? e.payload.content : e.payload.type));

async function expectReplaced(write: Promise<void>) {
  const error = await write.then(
    () => null,
    (e: unknown) => e,
  );
  expect(AgentError.isInstance(error) && error.code).toBe('STORAGE_ERROR');
  const cause = (error as AgentError).cause;
  expect(AgentError.isInstance(cause) && cause.code).toBe('SESSION_WRITER_REPLACED');
}

describe('two instances on one database', () => {
  it("refuses a stale writer's writes and lands none of its rows, while the new writer writes", async () => {
    const [a, b] = instances(2);
    const epochA = await a!.storage.claimWriter('s1');
    await a!.storage.saveEvent('s1', note('a1'), { writerEpoch: epochA });
    const epochB = await b!.storage.claimWriter('s1');
    expect(epochB).toBeGreaterThan(epochA);
    await expectReplaced(a!.storage.saveEvent('s1', note('a2'), { writerEpoch: epochA }));
    await b!.storage.saveEvent('s1', note('b1'), { writerEpoch: epochB });
    await expectReplaced(a!.storage.saveEvent('s1', note('a3'), { writerEpoch: epochA }));
    expect(texts(await a!.storage.loadSession('s1'))).toEqual(['a1', 'b1']);
    const { rows } = await a!.pool.query(
      `SELECT seq, body FROM "${a!.schema}".events WHERE session_id = 's1' ORDER BY seq`,
    );
    expect(rows.map((row: { seq: number }) => row.seq)).toEqual([1, 2]);
    expect(rows.some((row: { body: string }) => row.body.includes('"a2"') || row.body.includes('"a3"'))).toBe(
      false,
    );
  });

  it('a claim in the middle of a burst: what the old writer stored comes first, nothing of it after the claim', async () => {
    const [a, b] = instances(2);
    const epochA = await a!.storage.claimWriter('s1');
    const writes = Array.from({ length: 200 }, (_, i) =>
      a!.storage.saveEvent('s1', note(`a${i}`), { writerEpoch: epochA }).then(
        () => 'stored',
        (e: unknown) => (AgentError.isInstance(e) && e.cause ? 'refused' : `failed: ${String(e)}`),
      ),
    );
    const epochB = await b!.storage.claimWriter('s1');
    await b!.storage.saveEvent('s1', note('b0'), { writerEpoch: epochB });
    const outcomes = await Promise.all(writes);
    const stored = texts(await b!.storage.loadSession('s1'));
    const storedByA = outcomes.filter((o) => o === 'stored').length;
    expect(outcomes.filter((o) => o !== 'stored' && o !== 'refused')).toEqual([]);
    // A's stored writes are a prefix of its calls, then B's event; nothing of A's after it.
    expect(stored).toEqual([...Array.from({ length: storedByA }, (_, i) => `a${i}`), 'b0']);
    expect(outcomes).toEqual([
      ...Array<string>(storedByA).fill('stored'),
      ...Array<string>(200 - storedByA).fill('refused'),
    ]);
  });

  it('concurrent appends from four instances never take a sequence number twice, and keep each call order', async () => {
    const all = instances(4);
    await Promise.all(
      all.flatMap(({ storage }, writer) =>
        Array.from({ length: 50 }, (_, i) => storage.saveEvent('shared', note(`w${writer}-${i}`))),
      ),
    );
    const stored = texts(await all[0]!.storage.loadSession('shared'));
    expect(stored).toHaveLength(200);
    for (let writer = 0; writer < 4; writer++) {
      const mine = stored.filter((text) => text.startsWith(`w${writer}-`));
      expect(mine).toEqual(Array.from({ length: 50 }, (_, i) => `w${writer}-${i}`));
    }
    const { rows } = await all[0]!.pool.query(
      `SELECT count(*)::int AS n, count(DISTINCT seq)::int AS distinct_seq, min(seq) AS min, max(seq) AS max
       FROM "${all[0]!.schema}".events WHERE session_id = 'shared'`,
    );
    expect(rows[0]).toEqual({ n: 200, distinct_seq: 200, min: 1, max: 200 });
    const [summary] = (await all[1]!.storage.listSessions(null, 10)).sessions;
    expect(summary?.eventCount).toBe(200);
  });

  it('namespaces partition the sessions: another namespace neither sees nor claims them', async () => {
    const [alice] = instances(1, 'alice');
    const { sql } = database.client();
    const bob = new PostgresSessionStorage({ sql, schema: alice!.schema, namespace: 'bob' });
    await alice!.storage.saveEvent('s1', note('alice'));
    expect(await bob.loadSession('s1')).toBeNull();
    expect((await bob.listSessions(null, 10)).sessions).toEqual([]);
    expect(await bob.findSessions('alice')).toEqual([]);
    await bob.claimWriter('s1');
    await bob.deleteSession('s1');
    expect(texts(await alice!.storage.loadSession('s1'))).toEqual(['alice']);
    await alice!.storage.saveEvent('s1', note('still alice'), {
      writerEpoch: await alice!.storage.claimWriter('s1'),
    });
    expect(texts(await alice!.storage.loadSession('s1'))).toEqual(['alice', 'still alice']);
  });

  it('a claim whose wait timed out never lands later: the server cancelled it with its caller', async () => {
    const schema = `fencing_${++schemas}`;
    const { sql } = database.client();
    const writer = new PostgresSessionStorage({ sql, schema, namespace: 'user-1' });
    const epoch = await writer.claimWriter('s1');
    const late = new PostgresSessionStorage({ sql: database.client().sql, schema, namespace: 'user-1', queryTimeoutMs: 400 });
    await late.loadSession('s1'); // migrated and connected: only the claim waits below
    // Another transaction holds the session's row: the claim waits behind it past its timeout.
    const blocker = await database.pool().connect();
    try {
      await blocker.query('BEGIN');
      await blocker.query(`SELECT 1 FROM ${schema}.sessions WHERE id = 's1' FOR UPDATE`);
      await expect(late.claimWriter('s1')).rejects.toMatchObject({ code: 'STORAGE_ERROR' });
      await blocker.query('COMMIT');
    } finally {
      blocker.release();
    }
    // Once no statement of the late claim is left on the server, the epoch is still the writer's.
    const admin = database.pool();
    await expect
      .poll(async () => {
        const { rows } = await admin.query(
          `SELECT count(*)::int AS n FROM pg_stat_activity
           WHERE datname = current_database() AND pid <> pg_backend_pid() AND query LIKE '%writer_epochs%' AND state <> 'idle'`,
        );
        return rows[0].n;
      })
      .toBe(0);
    await writer.saveEvent('s1', note('still the writer'), { writerEpoch: epoch });
    expect(texts(await writer.loadSession('s1'))).toEqual(['still the writer']);
  });
});
