/**
 * Two instances on one real PostgreSQL database, one approval (DESIGN §9.5): device 1 starts a
 * turn through instance A that stops for approval; device 2 — another `RemoteAgent` of the same
 * user, on instance B — sees it as `session.activeTurn`, with its pending approval, and decides
 * it there. B takes the turn over and goes on with it. The tool runs once (or not at all, when
 * denied), device 1's `turn.result` settles with the turn's real result (not `failed` with
 * `SESSION_CLOSED`), both devices end with the same conversation, and the state either instance
 * answers names the turn as its `lastTurn`.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { Conversation } from '../../src/conversation/schema.js';
import type { RemoteSession } from '../../src/remote.js';
import { useDatabase } from '../postgres/support/server.js';
import { remoteFor, type RunningServer } from './support.js';
import { eventOf, eventually, instancesWorld, within } from './instances-world.js';
import { endedStatuses, expectCleanHistory, startInstance, typesOf, type Instance } from './postgres-instances.js';

const database = useDatabase();
const observer = database.pool({ application_name: 'observer' });
let schemas = 0;
const running: Instance[] = [];
const sessions: RemoteSession[] = [];
const subscriptions: { unsubscribe(): void }[] = [];
afterEach(async () => {
  for (const sub of subscriptions.splice(0)) sub.unsubscribe();
  sessions.splice(0);
  await Promise.all(running.splice(0).map((i) => i.server.close()));
});
afterAll(() => observer.end());

async function twoInstances(options: { leaseMs?: number } = {}) {
  const schema = `approval_${++schemas}`;
  const world = instancesWorld();
  const shared = { database, observer, schema, provider: world.provider, tools: [world.transfer] };
  const a = await startInstance('A', { ...shared, ...(options.leaseMs && { leaseMs: options.leaseMs }) });
  const b = await startInstance('B', shared);
  running.push(a, b);
  return { schema, world, a, b };
}

/** The latest conversation a session shows, kept while the test runs (it also keeps it followed). */
function watch(session: RemoteSession): () => Conversation {
  let latest: Conversation | undefined;
  sessions.push(session);
  subscriptions.push(session.conversation.subscribe((c) => (latest = c)));
  return () => latest!;
}

/** The state `GET /sessions/:id` answers on one instance (as `alice`). */
async function stateOn(server: RunningServer, sessionId: string) {
  const response = await fetch(`${server.url}/sessions/${sessionId}`, {
    headers: { authorization: 'Bearer alice' },
  });
  expect(response.status).toBe(200);
  return (await response.json()) as {
    conversation: Conversation;
    lastTurn: { turnId: string; result: { status: string } } | null;
  };
}

/**
 * What two renderings must agree on: the turn and the items, without a tool item's `durationMs`,
 * which only a live copy knows (the conversation read from storage has none: live-reducer.ts).
 */
const shown = (c: Conversation) => ({
  turn: c.turn,
  items: c.items.map((item) => {
    if (item.kind !== 'tool') return item;
    const { durationMs: _live, ...rest } = item;
    return rest;
  }),
});

describe('two instances, one approval', () => {
  for (const decision of ['approve', 'deny'] as const) {
    it(`device 2 on B sees device 1's turn awaiting approval and ${decision}s it: device 1's turn settles with its real result`, async () => {
      const { schema, world, a, b } = await twoInstances();
      const device1 = await remoteFor(a.server.url, 'alice').newSession();
      const shown1 = watch(device1);
      const turn = await device1.sendMessage('pay 7');
      await within(eventOf(turn, 'approval_requested'), 'the approval request on A');

      const device2 = await remoteFor(b.server.url, 'alice').resumeSession(device1.id);
      const shown2 = watch(device2);
      const active = device2.activeTurn;
      expect(active?.id).toBe(turn.id);
      expect(active!.pendingApprovals).toMatchObject([{ callId: 'pay-7', toolName: 'transfer' }]);

      if (decision === 'approve') await active!.approve('pay-7');
      else await active!.deny('pay-7', { reason: 'not today' });

      const [first, second] = await within(Promise.all([turn.result, active!.result]), 'both results');
      expect(first.error).toBeUndefined();
      expect(first.status).toBe('completed');
      expect(second.error).toBeUndefined();
      expect(second.status).toBe('completed');
      expect(world.executions).toEqual(decision === 'approve' ? new Map([['pay-7', 1]]) : new Map());

      const rows = await expectCleanHistory(observer, schema, device1.id);
      expect(endedStatuses(rows)).toEqual(['completed']);
      // Both devices end with the same conversation: the turn over, the call decided, the answer.
      const final = (c: Conversation) =>
        c.turn === null && c.items.some((i) => i.kind === 'tool' && i.status !== 'awaiting_approval' && i.status !== 'running');
      await eventually(async () => final(shown1()) && final(shown2()));
      expect(shown(shown1())).toEqual(shown(shown2()));
      const tool = shown1().items.find((i) => i.kind === 'tool');
      expect(tool).toMatchObject({ callId: 'pay-7', status: decision === 'approve' ? 'done' : 'denied' });
      // (The world's model answers once it has read the call's result, a denial's included.)
      expect(shown1().items.at(-1)).toMatchObject({ kind: 'assistant', text: 'paid 7' });
      expect(typesOf(device1.messages)).toEqual(typesOf(device2.messages));
      expect(typesOf(device2.messages)).toEqual(['user', 'assistant', 'tool_call', 'tool_result', 'assistant']);
      expect(device1.activeTurn).toBeNull();
      expect(device2.activeTurn).toBeNull();

      // The state either instance answers names the turn as the last one, completed.
      for (const server of [a.server, b.server]) {
        const state = await stateOn(server, device1.id);
        expect(state.lastTurn?.turnId).toBe(turn.id);
        expect(state.lastTurn?.result.status).toBe('completed');
        expect(state.conversation.turn).toBeNull();
      }
    });
  }

  it('the instance that holds a turn parked for approval shows it as the active turn; approving it there completes it', async () => {
    const { schema, world, a, b } = await twoInstances({ leaseMs: 1_000 });
    const device1 = await remoteFor(a.server.url, 'alice').newSession();
    const turn = await device1.sendMessage('pay 5');
    await within(eventOf(turn, 'approval_requested'), 'the approval request on A');
    await a.crash();
    // Once A's lease has run out, a read on B opens the session there: B holds the parked turn.
    await eventually(async () => {
      const { rows } = await observer.query(
        `SELECT 1 FROM "${schema}".locks WHERE session_id = $1 AND lease_until > clock_timestamp()`,
        [device1.id],
      );
      return rows.length === 0;
    });
    const device2 = await remoteFor(b.server.url, 'alice').resumeSession(device1.id);
    watch(device2);
    const { rows: held } = await observer.query(`SELECT holder FROM "${schema}".locks WHERE session_id = $1`, [
      device1.id,
    ]);
    expect(held).toEqual([{ holder: 'B' }]);
    const active = device2.activeTurn;
    expect(active?.id).toBe(turn.id);
    expect(active!.pendingApprovals).toMatchObject([{ callId: 'pay-5', toolName: 'transfer' }]);
    await active!.approve('pay-5');
    const result = await within(active!.result, 'the result on B');
    expect(result.error).toBeUndefined();
    expect(result.status).toBe('completed');
    expect(world.executions).toEqual(new Map([['pay-5', 1]]));
    expect(endedStatuses(await expectCleanHistory(observer, schema, device1.id))).toEqual(['completed']);
  });
});
