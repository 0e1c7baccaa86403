/**
 * Waits on a database that hangs (a TCP proxy that stops forwarding, not a refused connection)
 * are bounded by `queryTimeoutMs`: the migration, and listening again after the listening
 * connection broke. And one change feed per `(sql, schema)`.
 */
import { afterEach, describe, expect, inject, it } from 'vitest';
import type { SessionChange, SessionEvent } from '../../src/index.js';
import {
  migratePostgres,
  pgClient,
  PostgresSessionLock,
  PostgresSessionStorage,
  type SqlClient,
} from '../../src/postgres.js';
import { FreezingProxy } from '../support/freezing-proxy.js';
import { useDatabase } from './support/server.js';

const database = useDatabase();
const proxies: FreezingProxy[] = [];
afterEach(async () => {
  for (const proxy of proxies.splice(0)) await proxy.close();
});

async function proxied() {
  const proxy = await FreezingProxy.start(inject('postgres').port);
  proxies.push(proxy);
  const pool = database.pool({ port: proxy.port });
  return { proxy, sql: pgClient(pool) };
}

const note = (text: string): SessionEvent => ({
  timestamp: new Date().toISOString(),
  payload: { type: 'system_message', content: text },
});

describe('bounded by queryTimeoutMs on a hung database', () => {
  it('migratePostgres rejects with STORAGE_ERROR instead of waiting for ever', async () => {
    const { proxy, sql } = await proxied();
    proxy.freeze();
    await expect(migratePostgres(sql, { schema: 'bounded_1', queryTimeoutMs: 300 })).rejects.toMatchObject({
      code: 'STORAGE_ERROR',
    });
    // A storage's own migration is bounded by its queryTimeoutMs the same way.
    const storage = new PostgresSessionStorage({ sql, schema: 'bounded_1', queryTimeoutMs: 300 });
    await expect(storage.listSessions(null, 1)).rejects.toMatchObject({ code: 'STORAGE_ERROR' });
  });

  it('listening again after the listening connection broke gives up a hung try and tries again', async () => {
    const schema = 'bounded_2';
    const writer = new PostgresSessionStorage({ sql: database.client().sql, schema });
    const { proxy, sql } = await proxied();
    const reader = new PostgresSessionStorage({ sql, schema, queryTimeoutMs: 500 });
    const heard: SessionChange[] = [];
    const subscription = reader.changes!.subscribe((change) => heard.push(change));
    let n = 0;
    const hears = async () => {
      await writer.saveEvent('s1', note(`write ${++n}`));
      return heard.length > 0;
    };
    await expect.poll(hears).toBe(true);
    // The listening connection breaks while the database hangs: the next try to listen hangs too.
    proxy.freeze();
    proxy.cut();
    await expect.poll(() => proxy.acceptedWhileFrozen).toBeGreaterThan(0);
    proxy.thaw();
    heard.length = 0;
    await expect.poll(hears, { timeout: 10_000 }).toBe(true);
    subscription.unsubscribe();
  });

  it('one change feed per (sql, schema): its storages and lock listen once between them', async () => {
    const inner = database.client().sql;
    const channels: string[] = [];
    const sql: SqlClient = {
      query: (text, params) => inner.query(text, params),
      transaction: (work) => inner.transaction(work),
      listen: (channel, onNotify, options) => {
        channels.push(channel);
        return inner.listen!(channel, onNotify, options);
      },
    };
    const alice = new PostgresSessionStorage({ sql, schema: 'bounded_3', namespace: 'alice' });
    const bob = new PostgresSessionStorage({ sql, schema: 'bounded_3', namespace: 'bob' });
    const lock = new PostgresSessionLock({ sql, schema: 'bounded_3', leaseMs: 60_000 });
    const other = new PostgresSessionStorage({ sql, schema: 'bounded_4' });
    const heard: SessionChange[] = [];
    const subscriptions = [alice, bob, other].map((s) => s.changes!.subscribe((c) => heard.push(c)));
    subscriptions.push(lock.changes!.subscribe((c) => heard.push(c)));
    const lease = (await lock.acquire('s1', 'ifAvailable'))!;
    // Another instance writes to both namespaces: each storage hears its own, over the one feed.
    const writerA = new PostgresSessionStorage({ sql: database.client().sql, schema: 'bounded_3', namespace: 'alice' });
    const writerB = new PostgresSessionStorage({ sql: database.client().sql, schema: 'bounded_3', namespace: 'bob' });
    await writerA.saveEvent('a1', note('for alice'));
    await writerB.saveEvent('b1', note('for bob'));
    await expect.poll(() => heard.map((c) => c.sessionId).sort()).toEqual(['a1', 'b1']);
    expect(channels.sort()).toEqual(['bounded_3_changes', 'bounded_4_changes']);
    lease.release();
    for (const subscription of subscriptions) subscription.unsubscribe();
  });
});
