/**
 * A writer claim tied to the lease: with a `PostgresSessionLock` on the same `sql` and schema, a
 * storage's `claimWriter` is refused unless that lock holds the session's live lease, so a late
 * claim (an instance that lost its lease) never fences out the live writer.
 */
import { describe, expect, it } from 'vitest';
import type { SessionEvent } from '../../src/index.js';
import { PostgresSessionLock, PostgresSessionStorage } from '../../src/postgres.js';
import { useDatabase } from './support/server.js';

const database = useDatabase();
let schemas = 0;

const note = (text: string): SessionEvent => ({
  timestamp: new Date(Date.UTC(2024, 0, 1)).toISOString(),
  payload: { type: 'system_message', content: text },
});

function instances(count: number) {
  const schema = `claims_${++schemas}`;
  return Array.from({ length: count }, () => {
    const { sql } = database.client();
    return {
      lock: new PostgresSessionLock({ sql, schema, leaseMs: 60_000 }),
      storage: new PostgresSessionStorage({ sql, schema, namespace: 'user-1' }),
    };
  });
}

describe('a writer claim tied to the lease', () => {
  it('is refused without a lease of this instance, and after the lease was stolen', async () => {
    const [a, b] = instances(2);
    await expect(a!.storage.claimWriter('s1')).rejects.toMatchObject({ code: 'SESSION_LOCKED' });
    const leaseA = (await a!.lock.acquire('s1', 'ifAvailable'))!;
    const epochA = await a!.storage.claimWriter('s1');
    // B holds no lease: its claim changes nothing.
    await expect(b!.storage.claimWriter('s1')).rejects.toMatchObject({ code: 'SESSION_LOCKED' });
    await a!.storage.saveEvent('s1', note('A writes'), { writerEpoch: epochA });

    const leaseB = (await b!.lock.acquire('s1', 'steal'))!;
    await leaseA.lost;
    const epochB = await b!.storage.claimWriter('s1');
    expect(epochB).toBeGreaterThan(epochA);
    // A's lease is gone: a second claim from A (a late one) is refused and B stays the writer.
    await expect(a!.storage.claimWriter('s1')).rejects.toMatchObject({ code: 'SESSION_LOCKED' });
    await b!.storage.saveEvent('s1', note('B writes'), { writerEpoch: epochB });
    leaseB.release();
  });

  it('is checked by the claiming statement: a lease that ran out in the database is refused', async () => {
    const [a] = instances(1);
    const lease = (await a!.lock.acquire('s1', 'ifAvailable'))!;
    // The lease ran out in the database (its holder has not noticed yet).
    const pool = database.pool();
    await pool.query(`UPDATE claims_${schemas}.locks SET lease_until = now() - interval '1 second'`);
    await expect(a!.storage.claimWriter('s1')).rejects.toMatchObject({ code: 'SESSION_LOCKED' });
    lease.release();
  });

  it('without a PostgreSQL lock on the same sql, a claim needs no lease (as before)', async () => {
    const { sql } = database.client();
    const storage = new PostgresSessionStorage({ sql, schema: `claims_${++schemas}` });
    expect(await storage.claimWriter('s1')).toBeGreaterThan(0);
  });
});
