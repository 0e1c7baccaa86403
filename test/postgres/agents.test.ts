/**
 * Two full Agents, each with its own `pg` pool, `PostgresSessionStorage` and
 * `PostgresSessionLock` on one real database, as two server instances: a session is open on one
 * at a time, a steal takes it over, the old holder's late writes are refused, and the stored
 * history never interleaves.
 */
import { describe, expect, it } from 'vitest';
import type { AgentEvent, SessionEvent } from '../../src/index.js';
import { PostgresSessionLock, PostgresSessionStorage } from '../../src/postgres.js';
import { reply, type ScriptStep } from '../../src/testing/index.js';
import { createTestAgent } from '../support/agent.js';
import { expectAgentError } from '../support/errors.js';
import { toolPairingProblems } from '../support/history.js';
import { deferred, promiseJobsRun } from '../support/waits.js';
import { useDatabase } from './support/server.js';

const database = useDatabase();
let schemas = 0;

async function twoInstances(scriptA: ScriptStep[], scriptB: ScriptStep[]) {
  const schema = `agents_${++schemas}`;
  const instance = async (script: ScriptStep[]) => {
    const { sql } = database.client();
    const storage = new PostgresSessionStorage({ sql, schema, namespace: 'user-1' });
    const lock = new PostgresSessionLock({ sql, schema, leaseMs: 5_000 });
    return { storage, ...(await createTestAgent({ sessionStorage: storage, lock, script })) };
  };
  return { a: await instance(scriptA), b: await instance(scriptB) };
}

const userTexts = (events: SessionEvent[] | null) =>
  (events ?? []).flatMap((e) =>
    e.payload.type === 'user_message' && e.payload.content[0]?.type === 'text'
      ? [e.payload.content[0].text]
      : [],
  );

describe('two agents on two pools', () => {
  it('a session held by one is SESSION_LOCKED for the other, and opens there once closed', async () => {
    const { a, b } = await twoInstances([reply.text('from A')], [reply.text('from B')]);
    const session = await a.agent.newSession();
    await (
      await session.sendMessage('one')
    ).result;
    await expectAgentError(b.agent.resumeSession(session.id), 'SESSION_LOCKED');
    await session.close();
    const resumed = await b.agent.resumeSession(session.id, { ifLocked: 'wait' });
    await (
      await resumed.sendMessage('two')
    ).result;
    expect(userTexts(await a.storage.loadSession(session.id))).toEqual(['one', 'two']);
    await resumed.close();
  });

  it("a steal mid-turn: A loses the lock and closes, its late writes are refused, B's history follows A's", async () => {
    const hold = deferred();
    const { a, b } = await twoInstances(
      [
        reply.text('first'),
        [
          { type: 'text_delta', text: 'half' },
          { type: 'wait', until: hold.promise },
        ],
      ],
      [reply.text('from B')],
    );
    const session = await a.agent.newSession();
    await (
      await session.sendMessage('one')
    ).result;
    const seen: AgentEvent[] = [];
    session.events.subscribe((e) => seen.push(e));
    const running = await session.sendMessage('two');
    await promiseJobsRun();

    const taken = await b.agent.resumeSession(session.id, { ifLocked: 'steal' });
    expect((await running.result).status).toBe('cancelled');
    hold.resolve();
    await session.close();
    expect(seen.filter((e) => e.payload.type === 'session_lock_lost')).toEqual([
      expect.objectContaining({ payload: { type: 'session_lock_lost', by: 'steal' } }),
    ]);
    await (
      await taken.sendMessage('three')
    ).result;
    const stored = (await b.storage.loadSession(session.id))!;
    expect(userTexts(stored)).toEqual(['one', 'two', 'three']);
    expect(toolPairingProblems(taken.messages)).toEqual([]);
    // Every turn A started before the steal ends before B's turn starts: nothing interleaves.
    const markers = stored.flatMap((e) =>
      e.payload.type === 'metadata' && (e.payload.key === 'turn_started' || e.payload.key === 'turn_ended')
        ? [e.payload.key]
        : [],
    );
    expect(markers.slice(-2)).toEqual(['turn_started', 'turn_ended']);
    expect(markers.filter((m) => m === 'turn_started').length).toBeGreaterThanOrEqual(2);
    await taken.close();
  });

  it('with fencing alone (no lock), the replaced writer closes with writer_replaced and nothing of it lands after', async () => {
    const schema = `agents_${++schemas}`;
    const make = async (script: ScriptStep[]) => {
      const storage = new PostgresSessionStorage({ sql: database.client().sql, schema, namespace: 'u' });
      return { storage, ...(await createTestAgent({ sessionStorage: storage, lock: null, script })) };
    };
    const a = await make([reply.text('a1'), reply.text('a2')]);
    const b = await make([reply.text('b1')]);
    const session = await a.agent.newSession();
    await (
      await session.sendMessage('from a')
    ).result;
    const seen: AgentEvent[] = [];
    session.events.subscribe((e) => seen.push(e));
    const taken = await b.agent.resumeSession(session.id);
    await (
      await taken.sendMessage('from b')
    ).result;
    const late = await session.sendMessage('late from a');
    await late.result;
    await session.close();
    expect(
      seen.some((e) => e.payload.type === 'session_lock_lost' && e.payload.by === 'writer_replaced'),
    ).toBe(true);
    expect(userTexts(await b.storage.loadSession(session.id))).toEqual(['from a', 'from b']);
    await taken.close();
  });
});
