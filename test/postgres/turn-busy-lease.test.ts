/**
 * Whether a new turn elsewhere is refused is decided by the lease: `_resumeUnlessTurnRuns` (what
 * the server calls for a new turn or continue on a session another instance holds) is
 * `TURN_BUSY` while the holder's live lease runs a turn, and a take-over of an idle holder
 * otherwise, whatever the stored history says. The losing request never cancels the holder's turn.
 */
import { describe, expect, it } from 'vitest';
import type { SessionEvent } from '../../src/index.js';
import { PostgresSessionLock, PostgresSessionStorage } from '../../src/postgres.js';
import { reply, type ScriptStep } from '../../src/testing/index.js';
import { createTestAgent } from '../support/agent.js';
import { expectAgentError } from '../support/errors.js';
import { deferred } from '../support/waits.js';
import { useDatabase } from './support/server.js';

const database = useDatabase();
let schemas = 0;

async function twoInstances(scriptA: ScriptStep[], scriptB: ScriptStep[]) {
  const schema = `busy_${++schemas}`;
  const instance = async (script: ScriptStep[]) => {
    const { sql } = database.client();
    const storage = new PostgresSessionStorage({ sql, schema, namespace: 'user-1' });
    const lock = new PostgresSessionLock({ sql, schema, leaseMs: 60_000 });
    return { storage, lock, ...(await createTestAgent({ sessionStorage: storage, lock, script })) };
  };
  return { schema, a: await instance(scriptA), b: await instance(scriptB) };
}

describe('TURN_BUSY decided by the lease', () => {
  it("is TURN_BUSY while the holder runs a turn, never cancels it, and takes the idle holder's session", async () => {
    const hold = deferred();
    const { a, b } = await twoInstances(
      [[{ type: 'text_delta', text: 'working ' }, { type: 'wait', until: hold.promise }, { type: 'done', finishReason: 'stop' }]],
      [reply.text('from B')],
    );
    const session = await a.agent.newSession();
    const turn = await session.sendMessage('one');
    await expect.poll(async () => (await b.lock.peek(session.id)).turnId).toBe(turn.id);
    await expectAgentError(b.agent._resumeUnlessTurnRuns(session.id), 'TURN_BUSY');
    hold.resolve();
    expect((await turn.result).status).toBe('completed');
    await expect.poll(async () => (await b.lock.peek(session.id)).turnId).toBe(null);
    expect((await b.lock.peek(session.id)).live).toBe(true);
    const taken = await b.agent._resumeUnlessTurnRuns(session.id);
    expect((await (await taken.sendMessage('two')).result).status).toBe('completed');
    await taken.close();
  });

  it('an idle holder of a session whose stored history shows an unfinished turn is taken over', async () => {
    const { a, b } = await twoInstances([], [reply.text('from B')]);
    // The history shows a turn that started and never ended (an instance died mid-turn).
    const at = new Date().toISOString();
    const stored: SessionEvent[] = [
      { timestamp: at, payload: { type: 'metadata', key: 'session_config', value: { modelId: 'scripted-model' } } },
      { timestamp: at, payload: { type: 'metadata', key: 'turn_started', value: { turnId: 't1' } } },
      { timestamp: at, payload: { type: 'user_message', content: [{ type: 'text', text: 'cut off' }] } },
    ];
    for (const event of stored) await a.storage.saveEvent('s1', event);
    // A holds it idle: it shows the interrupted turn and runs nothing.
    const idle = await a.agent.resumeSession('s1');
    expect(idle.interruptedTurn?.turnId).toBe('t1');
    const taken = await b.agent._resumeUnlessTurnRuns('s1');
    expect(taken.interruptedTurn?.turnId).toBe('t1');
    await taken.close();
  });
});
