/**
 * Hostile strings are data: ids, namespaces, search queries and contents with quotes, SQL,
 * `LIKE` wildcards, backslashes, control characters and emoji round-trip and match literally
 * (PGlite: the same SQL as the server, in this process). What PostgreSQL text cannot hold
 * (U+0000 in a key) is refused with `INVALID_INPUT` before any SQL runs.
 */
import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionEvent } from '../../src/index.js';
import {
  PostgresMemoryStorage,
  PostgresSessionStorage,
  pgliteClient,
  type SqlClient,
} from '../../src/postgres.js';
import { expectAgentError } from '../support/errors.js';

let db: PGlite;
let sql: SqlClient;
beforeAll(async () => {
  db = await PGlite.create();
  sql = pgliteClient(db);
}, 60_000);
afterAll(() => db.close());

const HOSTILE = [
  "'; DROP TABLE youyou.sessions; --",
  'Robert"); DELETE FROM events; --',
  '100% _done_ \\ back\\slash',
  '$1 $2 ::text',
  'emoji 😀 and 中文 and \u202Eright-to-left',
  'tab\tnew\nline\u0001bell',
  'x'.repeat(256),
];

const user = (text: string, second = 0): SessionEvent => ({
  timestamp: new Date(Date.UTC(2024, 0, 1, 0, 0, second)).toISOString(),
  payload: { type: 'user_message', content: [{ type: 'text', text }] },
});

describe('hostile strings', () => {
  it('as session ids and namespaces: stored, listed, found and deleted as data', async () => {
    for (const [index, namespace] of HOSTILE.entries()) {
      const storage = new PostgresSessionStorage({ sql, schema: 'hostile', namespace });
      for (const id of HOSTILE) await storage.saveEvent(id, user(`in ${index}`));
      const listed = (await storage.listSessions(null, 100)).sessions.map((s) => s.id);
      expect([...listed].sort()).toEqual([...HOSTILE].sort());
      for (const id of HOSTILE) expect(await storage.loadSession(id)).toEqual([user(`in ${index}`)]);
      await storage.deleteSession(HOSTILE[0]!);
      expect(await storage.loadSession(HOSTILE[0]!)).toBeNull();
    }
    const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM hostile.sessions');
    expect(rows[0]!.n).toBe(HOSTILE.length * (HOSTILE.length - 1));
  });

  it('as search queries: LIKE wildcards and backslashes match literally', async () => {
    const storage = new PostgresSessionStorage({ sql, schema: 'hostile_search' });
    await storage.saveEvent('percent', user('done 100% of it'));
    await storage.saveEvent('plain', user('done 100 of it, 5 percent'));
    await storage.saveEvent('underscore', user('snake_case name'));
    await storage.saveEvent('slash', user('C:\\path\\to'));
    await storage.saveEvent('nul', user('a\u0000b'));
    const found = async (query: string) => (await storage.findSessions(query)).map((s) => s.id);
    expect(await found('100%')).toEqual(['percent']);
    expect(await found('%')).toEqual(['percent']);
    expect(await found('_')).toEqual(['underscore']);
    expect(await found('e_c')).toEqual(['underscore']);
    expect(await found('\\path')).toEqual(['slash']);
    expect(await found("'; DROP TABLE hostile_search.sessions; --")).toEqual([]);
    expect(await found('a\u0000b')).toEqual(['nul']);
    expect(await storage.loadSession('nul')).toEqual([user('a\u0000b')]);
  });

  it('as memory namespaces, ids and queries', async () => {
    const memories = new PostgresMemoryStorage({ sql, schema: 'hostile_memory' });
    const now = new Date().toISOString();
    for (const value of HOSTILE) {
      await memories.save({
        id: value,
        namespace: value,
        content: `about ${value}`,
        createdAt: now,
        updatedAt: now,
      });
    }
    for (const value of HOSTILE) {
      expect((await memories.search(value, '', 10)).map((m) => m.id)).toEqual([value]);
    }
    expect(await memories.search('%', '', 10)).toEqual([]);
    expect(await memories.search('no\u0000such', 'x', 10)).toEqual([]);
    await memories.delete(HOSTILE[0]!);
    expect(await memories.search(HOSTILE[0]!, '', 10)).toEqual([]);
  });

  it('U+0000 or a lone surrogate in a key is INVALID_INPUT before any SQL', async () => {
    const storage = new PostgresSessionStorage({ sql, schema: 'hostile_keys' });
    await expectAgentError(storage.saveEvent('a\u0000b', user('x')), 'INVALID_INPUT', 'U+0000');
    await expectAgentError(storage.loadSession('\uD800'), 'INVALID_INPUT', 'well-formed');
    await expectAgentError(storage.claimWriter('x'.repeat(257)), 'INVALID_INPUT', '256');
    expect(() => new PostgresSessionStorage({ sql, namespace: 'a\u0000' })).toThrow(/U\+0000/);
    const memories = new PostgresMemoryStorage({ sql, schema: 'hostile_keys' });
    const now = new Date().toISOString();
    await expectAgentError(
      memories.save({ id: 'a\u0000', namespace: 'n', content: 'c', createdAt: now, updatedAt: now }),
      'INVALID_INPUT',
    );
  });
});
