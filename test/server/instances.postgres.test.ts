/**
 * Several instances on one real PostgreSQL database: two handlers, each with its own `pg` pool,
 * storages and `PostgresSessionLock`, on real HTTP. Requests for one session go to either; the
 * stored history (read back in SQL) stays one sequence without gaps, doubles or interleaved
 * turns. A new turn while the other instance runs one is 409; an approval or a cancel sent to
 * the other instance takes the turn over there (the tool runs once); and when an instance dies
 * without releasing anything, its session is taken over after `leaseMs`.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { reply, ScriptedModelProvider } from '../../src/testing/index.js';
import { useDatabase } from '../postgres/support/server.js';
import { deferred } from '../support/waits.js';
import { remoteFor } from './support.js';
import { codeOf, eventOf, eventually, instancesWorld, post } from './instances-world.js';
import {
  endedStatuses,
  recoveryRows,
  expectCleanHistory,
  kindOf,
  startInstance,
  storedRows,
  typesOf,
  userTexts,
  type Instance,
} from './postgres-instances.js';

const database = useDatabase();
const observer = database.pool({ application_name: 'observer' });
let schemas = 0;
const running: Instance[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((i) => i.server.close()));
});
afterAll(() => observer.end());

/** Instances A and B on a fresh schema; `leaseMs` for A (B keeps the default). */
async function twoInstances(options: { leaseMs?: number } = {}) {
  const schema = `instances_${++schemas}`;
  const world = instancesWorld();
  const shared = { database, observer, schema, provider: world.provider, tools: [world.transfer] };
  const a = await startInstance('A', { ...shared, ...(options.leaseMs && { leaseMs: options.leaseMs }) });
  const b = await startInstance('B', shared);
  running.push(a, b);
  return { schema, world, a, b };
}

/** Who holds the session's lease, read from the lock table. */
async function holderOf(schema: string, sessionId: string): Promise<string | null> {
  const { rows } = await observer.query<{ holder: string }>(
    `SELECT holder FROM "${schema}".locks WHERE session_id = $1 AND lease_until > clock_timestamp()`,
    [sessionId],
  );
  return rows[0]?.holder ?? null;
}

describe('two instances, one database', () => {
  it('turns alternating between the instances: each takes the session over, the history is one sequence', async () => {
    const { schema, a, b } = await twoInstances();
    const session = await remoteFor(a.server.url, 'alice').newSession();
    for (const [i, instance] of [a, b, a, b, b, a].entries()) {
      const here = await remoteFor(instance.server.url, 'alice').resumeSession(session.id);
      const result = await (await here.sendMessage(`say ${i}`)).result;
      expect([i, result.status]).toEqual([i, 'completed']);
      expect(await holderOf(schema, session.id)).toBe(instance.name);
    }
    const rows = await expectCleanHistory(observer, schema, session.id);
    expect(userTexts(rows)).toEqual(['say 0', 'say 1', 'say 2', 'say 3', 'say 4', 'say 5']);
    expect(endedStatuses(rows)).toEqual(Array(6).fill('completed'));
    const onB = await remoteFor(b.server.url, 'alice').resumeSession(session.id);
    expect(typesOf(onB.messages)).toEqual(Array(6).fill(['user', 'assistant']).flat());
  });

  it('a new turn or continue while the other instance runs one is 409 TURN_BUSY, and takes nothing over', async () => {
    const { schema, world, a, b } = await twoInstances();
    const session = await remoteFor(a.server.url, 'alice').newSession();
    const turn = await session.sendMessage('hang 1');
    await eventOf(turn, 'text_delta');
    // "A turn runs there" is what the lease says: its holder records the turn it runs.
    await eventually(async () => {
      const { rows } = await observer.query(`SELECT turn_id FROM "${schema}".locks WHERE session_id = $1`, [
        session.id,
      ]);
      return typeof rows[0]?.turn_id === 'string';
    });
    for (const [path, body] of [
      ['turns', { input: 'say 2' }],
      ['continue', {}],
    ] as const) {
      const answer = await post(b.server, `/sessions/${session.id}/${path}`, body);
      expect([path, answer.status, await codeOf(answer)]).toEqual([path, 409, 'TURN_BUSY']);
    }
    expect(await holderOf(schema, session.id)).toBe('A');
    world.hold('1').resolve();
    expect((await turn.result).status).toBe('completed');
    // Once the turn ended there, a turn on B takes the session over.
    const onB = await remoteFor(b.server.url, 'alice').resumeSession(session.id);
    expect((await (await onB.sendMessage('say 3')).result).status).toBe('completed');
    const rows = await expectCleanHistory(observer, schema, session.id);
    expect(userTexts(rows)).toEqual(['hang 1', 'say 3']);
  });

  it('an approval sent to the other instance continues the turn there and runs the tool once', async () => {
    const { schema, world, a, b } = await twoInstances();
    const session = await remoteFor(a.server.url, 'alice').newSession();
    const turn = await session.sendMessage('pay 7');
    await eventOf(turn, 'approval_requested');
    const decided = await post(b.server, `/sessions/${session.id}/turns/${turn.id}/approvals/pay-7`, {
      approved: true,
    });
    expect(decided.status).toBe(204);
    expect(await holderOf(schema, session.id)).toBe('B');
    // A's copy loses the session; its client's turn settles either way.
    await turn.result;
    const rows = await eventually(async () => {
      const stored = await expectCleanHistory(observer, schema, session.id);
      return endedStatuses(stored).length > 0 && stored;
    });
    expect(endedStatuses(rows)).toEqual(['completed']);
    expect(world.executions).toEqual(new Map([['pay-7', 1]]));
    const onB = await remoteFor(b.server.url, 'alice').resumeSession(session.id);
    expect(typesOf(onB.messages)).toEqual(['user', 'assistant', 'tool_call', 'tool_result', 'assistant']);
    expect(onB.messages[3]).toMatchObject({ type: 'tool_result', content: 'moved 7', isError: false });
  });

  it('the same approval sent to both instances at once runs the tool exactly once', async () => {
    const { schema, world, a, b } = await twoInstances();
    const session = await remoteFor(a.server.url, 'alice').newSession();
    const turn = await session.sendMessage('pay 8');
    await eventOf(turn, 'approval_requested');
    const path = `/sessions/${session.id}/turns/${turn.id}/approvals/pay-8`;
    const answers = await Promise.all([a, b].map((i) => post(i.server, path, { approved: true })));
    // One decision is the one applied; the other is applied too or finds it decided already.
    expect(answers.some((r) => r.status === 204)).toBe(true);
    for (const answer of answers) expect([204, 409]).toContain(answer.status);
    const rows = await eventually(async () => {
      const stored = await expectCleanHistory(observer, schema, session.id);
      return endedStatuses(stored).length > 0 && stored;
    });
    expect(endedStatuses(rows)).toEqual(['completed']);
    expect(world.executions).toEqual(new Map([['pay-8', 1]]));
    expect(rows.filter((r) => kindOf(r.event) === 'tool_result')).toHaveLength(1);
  });

  it('an approval the other instance decided already is not applied to the same call asked again', async () => {
    const schema = `instances_${++schemas}`;
    const world = instancesWorld();
    const held = deferred();
    const call = { name: 'transfer', arguments: { amount: 5 }, callId: 'dup' };
    // A model that asks for the same call id again when the turn goes on elsewhere (as servers
    // with positional call ids do).
    const provider = new ScriptedModelProvider({
      script: [
        reply.toolCalls([call]),
        [
          { type: 'text_delta', text: 'half' },
          { type: 'wait', until: held.promise },
        ],
        reply.toolCalls([call]),
        reply.text('done'),
      ],
    });
    const shared = { database, observer, schema, provider, tools: [world.transfer] };
    const a = await startInstance('A', shared);
    const b = await startInstance('B', shared);
    running.push(a, b);
    const session = await remoteFor(a.server.url, 'alice').newSession();
    const turn = await session.sendMessage('pay 5');
    await eventOf(turn, 'approval_requested');
    const path = `/sessions/${session.id}/turns/${turn.id}/approvals/dup`;
    expect((await post(a.server, path, { approved: true })).status).toBe(204);
    await eventually(async () =>
      (await storedRows(observer, schema, session.id)).some((r) => kindOf(r.event) === 'tool_result'),
    );
    // The same decision reaches B late: B takes the turn over, and the model asks again.
    const late = await post(b.server, path, { approved: true });
    expect([late.status, await codeOf(late)]).toEqual([409, 'APPROVAL_NOT_PENDING']);
    expect(world.executions).toEqual(new Map([['dup', 1]]));
    // The request asked again waits for its own decision.
    expect((await post(b.server, path, { approved: false, reason: 'paid already' })).status).toBe(204);
    const rows = await eventually(async () => {
      const stored = await storedRows(observer, schema, session.id);
      return endedStatuses(stored).length > 0 && stored;
    });
    expect(endedStatuses(rows)).toEqual(['completed']);
    expect(world.executions).toEqual(new Map([['dup', 1]]));
    const results = rows.flatMap((r) =>
      r.event.payload.type === 'tool_result' ? [r.event.payload.content] : [],
    );
    expect(results).toEqual(['moved 5', expect.stringContaining('paid already')]);
  });

  it('a cancel sent to the other instance ends the turn, stored once as cancelled', async () => {
    const { schema, a, b } = await twoInstances();
    const session = await remoteFor(a.server.url, 'alice').newSession();
    const turn = await session.sendMessage('hang 2');
    await eventOf(turn, 'text_delta');
    expect((await post(b.server, `/sessions/${session.id}/turns/${turn.id}/cancel`)).status).toBe(202);
    expect(await holderOf(schema, session.id)).toBe('B');
    await turn.result;
    const rows = await expectCleanHistory(observer, schema, session.id);
    expect(endedStatuses(rows)).toEqual(['cancelled']);
    // The session goes on, from either instance.
    const onA = await remoteFor(a.server.url, 'alice').resumeSession(session.id);
    expect((await (await onA.sendMessage('say 3')).result).status).toBe('completed');
    const after = await expectCleanHistory(observer, schema, session.id);
    expect(userTexts(after)).toEqual(['hang 2', 'say 3']);
    expect(endedStatuses(after)).toEqual(['cancelled', 'completed']);
  });

  it('an instance that dies mid-turn: after leaseMs, the next request recovers its turn; not before', async () => {
    const { schema, world, a, b } = await twoInstances({ leaseMs: 1_500 });
    const session = await remoteFor(a.server.url, 'alice').newSession();
    const turn = await session.sendMessage('hang 3');
    await eventOf(turn, 'text_delta');
    // What the dead instance leaves behind: the turn's start and its user message, stored (its
    // writes do not wait for storage mid-stream, so the test waits for those before the crash).
    await eventually(async () =>
      userTexts(await storedRows(observer, schema, session.id)).includes('hang 3'),
    );
    await a.crash();
    // Its lease still runs, and records the turn it ran: a new turn is refused, and nothing is
    // recovered yet.
    const busy = await post(b.server, `/sessions/${session.id}/turns`, { input: 'say 4' });
    expect([busy.status, await codeOf(busy)]).toEqual([409, 'TURN_BUSY']);
    expect(recoveryRows(await storedRows(observer, schema, session.id))).toEqual([]);
    // Once the lease ran out, a request opens the session on B, which goes on with the dead
    // instance's turn under its id before it answers (still 409 for a new turn while it runs).
    const recovered = await eventually(async () => {
      const answer = await post(b.server, `/sessions/${session.id}/turns`, { input: 'say 4' });
      expect([answer.status, await codeOf(answer)]).toEqual([409, 'TURN_BUSY']);
      const rows = recoveryRows(await storedRows(observer, schema, session.id));
      return rows.length > 0 && rows;
    });
    expect(recovered).toEqual([{ turnId: turn.id, attempt: 1, at: expect.any(String) }]);
    expect(await holderOf(schema, session.id)).toBe('B');
    world.hold('3').resolve();
    const taken = await eventually(async () => {
      const answer = await post(b.server, `/sessions/${session.id}/turns`, { input: 'say 4' }, true);
      if (answer.status === 200) return answer;
      expect(await codeOf(answer)).toBe('TURN_BUSY');
      return null;
    });
    await taken.text(); // the stream ends after the turn's result
    const rows = await expectCleanHistory(observer, schema, session.id);
    expect(userTexts(rows)).toEqual(['hang 3', 'say 4']);
    // The dead instance's turn completed on B, then B's own turn ran.
    expect(endedStatuses(rows)).toEqual(['completed', 'completed']);
  });

  it('an instance that dies while a turn awaits approval: the approval sent to the other runs the tool once', async () => {
    const { schema, world, a, b } = await twoInstances({ leaseMs: 60_000 });
    const session = await remoteFor(a.server.url, 'alice').newSession();
    const turn = await session.sendMessage('pay 9');
    await eventOf(turn, 'approval_requested');
    await a.crash();
    // A command takes the session over at once, however long the dead instance's lease.
    const path = `/sessions/${session.id}/turns/${turn.id}/approvals/pay-9`;
    expect((await post(b.server, path, { approved: true })).status).toBe(204);
    const rows = await eventually(async () => {
      const stored = await expectCleanHistory(observer, schema, session.id);
      return endedStatuses(stored).length > 0 && stored;
    });
    expect(endedStatuses(rows)).toEqual(['completed']);
    expect(world.executions).toEqual(new Map([['pay-9', 1]]));
    expect(await holderOf(schema, session.id)).toBe('B');
  });
});
