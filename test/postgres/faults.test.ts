/**
 * Faults on a real server: a connection killed or a pool gone mid-turn, a query that hangs
 * behind a lock, and rows that are not as this library stores them.
 */
import { describe, expect, it } from 'vitest';
import { AgentBuilder, type AgentEvent, type SessionEvent } from '../../src/index.js';
import { PostgresMemoryStorage, PostgresSessionStorage } from '../../src/postgres.js';
import { reply, ScriptedModelProvider, SCRIPTED_MODEL } from '../../src/testing/index.js';
import { expectAgentError } from '../support/errors.js';
import { deferred, promiseJobsRun } from '../support/waits.js';
import { useDatabase } from './support/server.js';

const database = useDatabase();
let schemas = 0;

const note = (text: string): SessionEvent => ({
  timestamp: new Date().toISOString(),
  payload: { type: 'system_message', content: text },
});

async function agentOn(storage: PostgresSessionStorage, hold: Promise<void>, storageTimeoutMs = 30_000) {
  const script = [
    [
      { type: 'text_delta' as const, text: 'partial ' },
      { type: 'wait' as const, until: hold },
      { type: 'text_delta' as const, text: 'answer' },
      { type: 'done' as const, finishReason: 'stop' },
    ],
  ];
  return new AgentBuilder({ defaultModel: SCRIPTED_MODEL.id, storageTimeoutMs })
    .registerModelProvider(new ScriptedModelProvider({ script }))
    .registerSessionStorage(storage)
    .build();
}

describe('a connection lost mid-turn', () => {
  it('killed server connections: the pool reconnects and the turn is stored whole', async () => {
    const { sql, pool } = database.client();
    const storage = new PostgresSessionStorage({ sql, schema: `faults_${++schemas}` });
    const hold = deferred();
    const agent = await agentOn(storage, hold.promise);
    const session = await agent.newSession();
    const events: AgentEvent[] = [];
    session.events.subscribe((e) => events.push(e));
    const turn = await session.sendMessage('hello');
    // The turn is parked on the model with its user message stored: no write is in flight.
    await expect
      .poll(async () =>
        (await storage.loadSession(session.id))?.some((e) => e.payload.type === 'user_message'),
      )
      .toBe(true);
    const killer = database.pool();
    const { rows } = await killer.query(
      `SELECT count(pg_terminate_backend(pid))::int AS killed FROM pg_stat_activity
       WHERE datname = $1 AND pid <> pg_backend_pid() AND backend_type = 'client backend'`,
      [database.name],
    );
    expect(rows[0].killed).toBeGreaterThan(0);
    // The pool drops the dead connections as it hears of them; the next writes open new ones.
    await expect.poll(() => pool.idleCount).toBe(0);
    hold.resolve();
    expect((await turn.result).status).toBe('completed');
    const stored = await storage.loadSession(session.id);
    expect(stored?.some((e) => e.payload.type === 'assistant_message')).toBe(true);
    // A draft checkpoint in flight at the kill may have failed: reported, never fatal.
    const errors = events.flatMap((e) => (e.payload.type === 'error' ? [e.payload] : []));
    expect(errors.filter((e) => e.fatal || e.error.code !== 'STORAGE_ERROR')).toEqual([]);
    await agent.shutdown();
  });

  it('a pool that is gone: a non-fatal STORAGE_ERROR, and the turn still completes', async () => {
    const { sql, pool } = database.client();
    const storage = new PostgresSessionStorage({ sql, schema: `faults_${++schemas}` });
    const hold = deferred();
    const agent = await agentOn(storage, hold.promise);
    const session = await agent.newSession();
    const events: AgentEvent[] = [];
    session.events.subscribe((e) => events.push(e));
    const turn = await session.sendMessage('hello');
    await promiseJobsRun();
    await pool.end();
    hold.resolve();
    expect((await turn.result).status).toBe('completed');
    const errors = events.flatMap((e) => (e.payload.type === 'error' ? [e.payload] : []));
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.every((e) => !e.fatal && e.error.code === 'STORAGE_ERROR')).toBe(true);
    await agent.shutdown();
  });
});

describe('a query that hangs', () => {
  it('is bounded by queryTimeoutMs (STORAGE_ERROR), and the agent by storageTimeoutMs', async () => {
    const schema = `faults_${++schemas}`;
    const storage = new PostgresSessionStorage({ sql: database.client().sql, schema, queryTimeoutMs: 300 });
    await storage.saveEvent('s1', note('before'));
    const patient = new PostgresSessionStorage({ sql: database.client().sql, schema });
    const hold = deferred();
    hold.resolve();
    const agent = await agentOn(patient, hold.promise, 300);
    const session = await agent.newSession();
    await promiseJobsRun();
    // Another connection holds the table: every statement on it waits.
    const blocker = await database.pool().connect();
    await blocker.query('BEGIN');
    await blocker.query(`LOCK TABLE "${schema}".sessions IN ACCESS EXCLUSIVE MODE`);
    try {
      await expectAgentError(storage.saveEvent('s1', note('stuck')), 'STORAGE_ERROR', 'within 300ms');
      const events: AgentEvent[] = [];
      session.events.subscribe((e) => events.push(e));
      expect((await (await session.sendMessage('hello')).result).status).toBe('completed');
      const errors = events.flatMap((e) => (e.payload.type === 'error' ? [e.payload.error.message] : []));
      expect(errors.some((m) => m.includes('did not settle within 300ms'))).toBe(true);
      await agent.shutdown();
    } finally {
      await blocker.query('ROLLBACK');
      blocker.release();
    }
  });
});

describe('malformed stored rows', () => {
  it('are a STORAGE_ERROR naming what is malformed, never a value passed on', async () => {
    const schema = `faults_${++schemas}`;
    const { sql } = database.client();
    const storage = new PostgresSessionStorage({ sql, schema });
    const memories = new PostgresMemoryStorage({ sql, schema });
    const raw = database.pool();
    for (const id of ['body', 'gap', 'count', 'summary']) {
      for (const text of ['one', 'two', 'three']) await storage.saveEvent(id, note(text));
    }
    await raw.query(`UPDATE "${schema}".events SET body = 'not json' WHERE session_id = 'body' AND seq = 2`);
    await raw.query(`DELETE FROM "${schema}".events WHERE session_id = 'gap' AND seq = 2`);
    await raw.query(`UPDATE "${schema}".sessions SET event_count = 9 WHERE id = 'count'`);
    await expectAgentError(storage.loadSession('body'), 'STORAGE_ERROR', "event 2 of session 'body'");
    await expectAgentError(storage.loadSession('gap'), 'STORAGE_ERROR', 'malformed');
    await expectAgentError(storage.loadSession('count'), 'STORAGE_ERROR', 'malformed');
    await raw.query(
      `UPDATE "${schema}".events SET body = '{"timestamp":"x","payload":{}}' WHERE session_id = 'count'`,
    );
    await raw.query(`UPDATE "${schema}".sessions SET turn_count = -1 WHERE id = 'summary'`);
    await expectAgentError(storage.listSessions(null, 10), 'STORAGE_ERROR', "session 'summary'");

    await storage.saveDraft('body', { turnId: 't', text: 'x', updatedAt: new Date().toISOString() });
    await raw.query(`UPDATE "${schema}".drafts SET body = '{"turnId":1}'`);
    await expectAgentError(storage.loadDraft('body'), 'STORAGE_ERROR', 'draft');

    const now = new Date().toISOString();
    await memories.save({ id: 'm1', namespace: 'ns', content: 'fine', createdAt: now, updatedAt: now });
    await raw.query(`UPDATE "${schema}".memories SET body = '[]' WHERE id = 'm1'`);
    await expectAgentError(memories.search('ns', 'fine', 5), 'STORAGE_ERROR', "memory 'm1'");
  });
});
