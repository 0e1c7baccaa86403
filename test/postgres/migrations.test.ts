/**
 * `migratePostgres` on a real server: versioned, idempotent, and run exactly once when several
 * instances start at once.
 */
import { describe, expect, it } from 'vitest';
import { migratePostgres, PostgresSessionStorage, SCHEMA_VERSION } from '../../src/postgres.js';
import { expectAgentError } from '../support/errors.js';
import { useDatabase } from './support/server.js';

const database = useDatabase();

describe('migratePostgres', () => {
  it('six clients migrating at once migrate once: one from 0, the others find it done', async () => {
    const clients = Array.from({ length: 6 }, () => database.client().sql);
    const results = await Promise.all(clients.map((sql) => migratePostgres(sql, { schema: 'race' })));
    expect(results.filter((r) => r.from === 0)).toHaveLength(1);
    expect(results.filter((r) => r.from === SCHEMA_VERSION)).toHaveLength(5);
    expect(results.every((r) => r.to === SCHEMA_VERSION)).toBe(true);
    const { rows } = await database.pool().query('SELECT version FROM race.migrations ORDER BY version');
    expect(rows).toEqual(Array.from({ length: SCHEMA_VERSION }, (_, i) => ({ version: i + 1 })));
  });

  it('storages migrate on first use, concurrently, without an error or a duplicate', async () => {
    const storages = Array.from(
      { length: 6 },
      (_, i) =>
        new PostgresSessionStorage({ sql: database.client().sql, schema: 'first_use', namespace: `n${i}` }),
    );
    await Promise.all(storages.map((s) => s.listSessions(null, 1)));
    const { rows } = await database.pool().query('SELECT count(*)::int AS n FROM first_use.migrations');
    expect(rows).toEqual([{ n: SCHEMA_VERSION }]); // each version once
  });

  it('with migrate: false a storage does not create its tables (a STORAGE_ERROR until migrated)', async () => {
    const { sql } = database.client();
    const storage = new PostgresSessionStorage({ sql, schema: 'manual', migrate: false });
    await expectAgentError(storage.listSessions(null, 1), 'STORAGE_ERROR');
    expect(await migratePostgres(sql, { schema: 'manual' })).toEqual({ from: 0, to: SCHEMA_VERSION });
    expect(await storage.listSessions(null, 1)).toEqual({ sessions: [], nextCursor: null });
  });

  it('refuses a schema name that is not a plain identifier, and a schema newer than this release', async () => {
    const { sql } = database.client();
    await expectAgentError(migratePostgres(sql, { schema: 'x"; DROP SCHEMA public; --' }), 'INVALID_INPUT');
    expect(() => new PostgresSessionStorage({ sql, schema: 'Upper' })).toThrow(/schema/);
    expect(() => new PostgresSessionStorage({ sql, schemas: 'x' } as never)).toThrow(/schemas/);
    await migratePostgres(sql, { schema: 'future' });
    await database.pool().query('INSERT INTO future.migrations (version) VALUES ($1)', [SCHEMA_VERSION + 1]);
    await expectAgentError(migratePostgres(sql, { schema: 'future' }), 'STORAGE_ERROR', 'newer');
  });

  it('version 2 fills the owner and open-turn columns from the events stored at version 1', async () => {
    const { sql } = database.client();
    const pool = database.pool();
    await migratePostgres(sql, { schema: 'upgrade' });
    // Back to version 1, as a database of the previous release is.
    await pool.query(`ALTER TABLE upgrade.sessions DROP COLUMN owner, DROP COLUMN open_turn_id, DROP COLUMN open_turn_since;
      ALTER TABLE upgrade.locks DROP COLUMN turn_id;
      ALTER TABLE upgrade.memories DROP CONSTRAINT memories_pkey, ADD PRIMARY KEY (id);
      DELETE FROM upgrade.migrations WHERE version > 1`);
    const event = (key: string, value: unknown, at: string) =>
      JSON.stringify({ timestamp: at, payload: { type: 'metadata', key, value } });
    const rows: [string, number, string][] = [
      ['open', 1, event('session_owner', { userId: 'alice' }, '2024-01-01T00:00:00.000Z')],
      ['open', 2, event('turn_started', { turnId: 't1' }, '2024-01-01T00:00:01.000Z')],
      ['open', 3, event('turn_ended', { turnId: 't1', status: 'completed' }, '2024-01-01T00:00:02.000Z')],
      ['open', 4, event('turn_started', { turnId: 't2' }, '2024-01-01T00:00:03.250Z')],
      ['done', 1, event('session_owner', { userId: 'bob' }, '2024-01-01T00:00:00.000Z')],
      ['done', 2, event('turn_started', { turnId: 't1' }, '2024-01-01T00:00:01.000Z')],
      ['done', 3, event('turn_ended', { turnId: 't1', status: 'completed' }, '2024-01-01T00:00:02.000Z')],
    ];
    for (const id of ['open', 'done'])
      await pool.query(
        `INSERT INTO upgrade.sessions (namespace, id, created_at, updated_at, event_count) VALUES ('', $1, 'x', 'x', $2)`,
        [id, rows.filter((r) => r[0] === id).length],
      );
    for (const [id, seq, body] of rows)
      await pool.query(
        `INSERT INTO upgrade.events (namespace, session_id, seq, type, body, search_text) VALUES ('', $1, $2, 'metadata', $3, '')`,
        [id, seq, body],
      );
    expect(await migratePostgres(sql, { schema: 'upgrade' })).toEqual({ from: 1, to: SCHEMA_VERSION });
    const { rows: upgraded } = await pool.query(
      'SELECT id, owner, open_turn_id, open_turn_since FROM upgrade.sessions ORDER BY id',
    );
    expect(upgraded).toEqual([
      { id: 'done', owner: 'bob', open_turn_id: null, open_turn_since: null },
      { id: 'open', owner: 'alice', open_turn_id: 't2', open_turn_since: '2024-01-01T00:00:03.250Z' },
    ]);
  });
});
