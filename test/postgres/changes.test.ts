/**
 * `PostgresSessionStorage.changes` across instances on a real server, and its way into
 * `agent.sessionChanges`: another instance's commits arrive as `appended` and `deleted`, an
 * instance's own writes do not.
 */
import { describe, expect, it } from 'vitest';
import type { SessionChange, SessionEvent } from '../../src/index.js';
import { PostgresSessionStorage } from '../../src/postgres.js';
import { reply } from '../../src/testing/index.js';
import { createTestAgent } from '../support/agent.js';
import { useDatabase } from './support/server.js';

const database = useDatabase();

const note = (text: string): SessionEvent => ({
  timestamp: new Date().toISOString(),
  payload: { type: 'system_message', content: text },
});

function storages(schema: string) {
  const make = () => new PostgresSessionStorage({ sql: database.client().sql, schema, namespace: 'u1' });
  return [make(), make()] as const;
}

/** Subscribes, then waits until a probe write of `writer` is heard: listening is on. */
async function listening(feed: PostgresSessionStorage, writer: PostgresSessionStorage) {
  const seen: SessionChange[] = [];
  const subscription = feed.changes!.subscribe((c) => seen.push(c));
  await expect
    .poll(async () => {
      await writer.saveEvent('probe', note('probe'));
      return seen.some((c) => c.sessionId === 'probe');
    })
    .toBe(true);
  return { seen: () => seen.filter((c) => c.sessionId !== 'probe'), subscription };
}

describe('PostgresSessionStorage.changes', () => {
  it("reports another instance's appends and deletes, read from the tables, and not its own", async () => {
    const [a, b] = storages('changes_basic');
    const heard = await listening(a, b);
    await b.saveEvent('s1', note('from b'));
    await expect.poll(heard.seen).toEqual([{ sessionId: 's1', kind: 'appended' }]);
    await a.saveEvent('s2', note('from a'));
    await b.deleteSession('s1');
    await expect.poll(heard.seen).toEqual([
      { sessionId: 's1', kind: 'appended' },
      { sessionId: 's1', kind: 'deleted' },
    ]);
    // Another namespace on the same schema rings the same channel; it is not this feed's.
    const other = new PostgresSessionStorage({
      sql: database.client().sql,
      schema: 'changes_basic',
      namespace: 'u2',
    });
    await other.saveEvent('s3', note('elsewhere'));
    await b.saveEvent('s4', note('marker'));
    await expect.poll(() => heard.seen().at(-1)).toEqual({ sessionId: 's4', kind: 'appended' });
    expect(heard.seen().map((c) => c.sessionId)).not.toContain('s3');
    expect(heard.seen().map((c) => c.sessionId)).not.toContain('s2');
    heard.subscription.unsubscribe();
  });

  it("agent.sessionChanges carries another instance's writes (and completes at shutdown)", async () => {
    const [mine, theirs] = storages('changes_agent');
    const { agent } = await createTestAgent({ sessionStorage: mine, script: [reply.text('hi')] });
    const seen: SessionChange[] = [];
    let completed = false;
    agent.sessionChanges.subscribe({ next: (c) => seen.push(c), complete: () => (completed = true) });
    await expect
      .poll(async () => {
        await theirs.saveEvent('elsewhere', note('another instance'));
        return seen.some((c) => c.sessionId === 'elsewhere' && c.kind === 'appended');
      })
      .toBe(true);
    // The agent's own session is not reported back to it.
    const session = await agent.newSession();
    await (
      await session.sendMessage('hello')
    ).result;
    await theirs.saveEvent('marker', note('after'));
    await expect.poll(() => seen.some((c) => c.sessionId === 'marker')).toBe(true);
    expect(seen.filter((c) => c.sessionId === session.id)).toEqual([]);
    await agent.shutdown();
    expect(completed).toBe(true);
  });

  it('listens again after its listening connection was killed', async () => {
    const [a, b] = storages('changes_relisten');
    const heard = await listening(a, b);
    const killer = database.pool();
    const { rows } = await killer.query(
      `SELECT count(pg_terminate_backend(pid))::int AS killed FROM pg_stat_activity
       WHERE datname = $1 AND pid <> pg_backend_pid() AND query LIKE 'LISTEN%'`,
      [database.name],
    );
    expect(rows[0].killed).toBeGreaterThan(0);
    await expect
      .poll(async () => {
        await b.saveEvent('after-kill', note('again'));
        return heard.seen().some((c) => c.sessionId === 'after-kill');
      })
      .toBe(true);
    heard.subscription.unsubscribe();
  });
});
