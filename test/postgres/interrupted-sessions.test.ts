/**
 * The summary's owner column, `findInterruptedSessions` (open turns kept by the inserting
 * statement, leases free or expired) and memory ids per namespace, on a real server.
 */
import { describe, expect, it } from 'vitest';
import type { SessionEvent } from '../../src/index.js';
import {
  findInterruptedSessions,
  PostgresMemoryStorage,
  PostgresSessionLock,
  PostgresSessionStorage,
} from '../../src/postgres.js';
import { useDatabase } from './support/server.js';

const database = useDatabase();
let schemas = 0;
const at = (seconds: number) => new Date(Date.UTC(2024, 0, 1, 0, 0, seconds)).toISOString();
const meta = (seconds: number, key: string, value: unknown): SessionEvent => ({
  timestamp: at(seconds),
  payload: { type: 'metadata', key, value },
});
const user = (seconds: number, text: string): SessionEvent => ({
  timestamp: at(seconds),
  payload: { type: 'user_message', content: [{ type: 'text', text }] },
});
const started = (seconds: number, turnId: string) => meta(seconds, 'turn_started', { turnId });
const ended = (seconds: number, turnId: string) =>
  meta(seconds, 'turn_ended', { turnId, status: 'completed', usage: { inputTokens: 0, outputTokens: 0 } });

describe('findInterruptedSessions', () => {
  it('lists the sessions whose last turn_started has no turn_ended and whose lease is free or expired', async () => {
    const schema = `interrupted_${++schemas}`;
    const { sql } = database.client();
    const alice = new PostgresSessionStorage({ sql, schema, namespace: 'alice' });
    const bob = new PostgresSessionStorage({ sql, schema, namespace: 'bob' });
    const lock = new PostgresSessionLock({ sql, schema, leaseMs: 60_000 });
    // Open: a turn started, no end (written one event at a time).
    await alice.saveEvent('open', meta(0, 'session_owner', { userId: 'alice' }));
    await alice.saveEvent('open', started(1, 't1'));
    await alice.saveEvent('open', user(2, 'hi'));
    // Ended: start and end in one burst.
    await Promise.all([
      alice.saveEvent('done', meta(0, 'session_owner', { userId: 'alice' })),
      alice.saveEvent('done', started(3, 't1')),
      alice.saveEvent('done', user(4, 'hi')),
      alice.saveEvent('done', ended(5, 't1')),
    ]);
    // A second turn started after the first ended: open again, as its second turn.
    await alice.saveEvent('again', meta(0, 'session_owner', { userId: 'alice' }));
    await alice.saveEvent('again', started(6, 't1'));
    await alice.saveEvent('again', ended(7, 't1'));
    await Promise.all([alice.saveEvent('again', started(8, 't2')), alice.saveEvent('again', user(9, 'more'))]);
    // Open, but held by a live lease: not listed until it is free.
    await bob.saveEvent('held', meta(0, 'session_owner', { userId: 'bob' }));
    await bob.saveEvent('held', started(10, 'tb'));
    const lease = (await lock.acquire('held', 'ifAvailable'))!;
    // Open, without an owner: nobody could open it for a user.
    await bob.saveEvent('ownerless', started(11, 'tx'));

    expect(await findInterruptedSessions(sql, { schema })).toEqual([
      { sessionId: 'open', namespace: 'alice', userId: 'alice', turnId: 't1', since: at(1) },
      { sessionId: 'again', namespace: 'alice', userId: 'alice', turnId: 't2', since: at(8) },
    ]);
    expect(await findInterruptedSessions(sql, { schema, limit: 1 })).toHaveLength(1);
    lease.release();
    await expect
      .poll(async () => (await findInterruptedSessions(sql, { schema })).map((s) => s.sessionId))
      .toEqual(['open', 'again', 'held']);
    // Its turn ends: it is not interrupted any more.
    await alice.saveEvent('open', ended(12, 't1'));
    expect((await findInterruptedSessions(sql, { schema })).map((s) => s.sessionId)).toEqual(['again', 'held']);
    // The owner is in the summary too.
    expect((await alice.loadSummary('open'))?.owner).toBe('alice');
    expect((await bob.listSessions(null, 10)).sessions.map((s) => [s.id, s.owner])).toEqual([
      ['ownerless', undefined],
      ['held', 'bob'],
    ]);
  });

  it('memory ids are unique per namespace: the same id in two namespaces is two memories', async () => {
    const { sql } = database.client();
    const memories = new PostgresMemoryStorage({ sql, schema: `interrupted_${++schemas}` });
    const memory = (namespace: string, content: string) => ({
      id: 'm1',
      namespace,
      content,
      createdAt: at(0),
      updatedAt: at(1),
    });
    await memories.save(memory('alice', 'alice likes tea'));
    await memories.save(memory('bob', 'bob likes coffee'));
    expect((await memories.search('alice', '', 10)).map((m) => m.content)).toEqual(['alice likes tea']);
    expect((await memories.search('bob', '', 10)).map((m) => m.content)).toEqual(['bob likes coffee']);
  });
});
