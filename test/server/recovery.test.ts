/**
 * A turn survives its instance, in one process: handlers on one storage and one lock table stand
 * in for instances, and an instance "dies" by losing its leases without being told
 * (`SharedSessionLock.crash`) or by `handler.close()`. The next instance that opens the session
 * recovers the turn under its id: read-only calls run again, a mutating call that may have run
 * answers "outcome unknown" unless its tool is idempotent, a parked approval waits for its
 * decision, and runs that keep dying end the turn `RECOVERY_EXHAUSTED`, once. The real-process
 * kills are in the chaos suite.
 */
import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { defineTool, type ChatRequest, type SessionEvent } from '../../src/index.js';
import { TOOL_OUTCOME_UNKNOWN_SERVER_TEXT } from '../../src/server/recovery.js';
import { reply, ScriptedModelProvider, type ScriptedResponse } from '../../src/testing/index.js';
import type { AgentHandlerOptions } from '../../src/server.js';
import { SharedSessionLock } from '../support/shared-lock.js';
import { deferred } from '../support/waits.js';
import { eventOf, eventually, within } from './instances-world.js';
import { remoteFor, serversClosedAfterEach, startHandler, testWorld, transferTool } from './support.js';

const servers = serversClosedAfterEach();

const metadata = (events: readonly SessionEvent[] | null, key: string) =>
  (events ?? []).flatMap(({ payload }) => (payload.type === 'metadata' && payload.key === key ? [payload.value] : []));
const toolResults = (events: readonly SessionEvent[] | null) =>
  Object.fromEntries(
    (events ?? []).flatMap(({ payload }) => (payload.type === 'tool_result' ? [[payload.callId, payload.content]] : [])),
  );

/** A tool that hangs on its first run (its instance dies during it) and answers on the next ones. */
function flakyTool(name: string, options: { mutating: boolean; idempotent?: boolean }) {
  const runs = { count: 0 };
  const started = deferred();
  const tool = defineTool({
    name,
    description: `${name} test tool`,
    parameters: z.object({}),
    mutating: options.mutating,
    ...(options.idempotent !== undefined && { idempotent: options.idempotent }),
    execute: async () => {
      runs.count++;
      if (runs.count === 1) {
        started.resolve();
        return new Promise<string>(() => {});
      }
      return `${name} done`;
    },
  });
  return { tool, runs, started: started.promise };
}

/** A model that calls `toolName` once, then answers `done` once it has read the result. */
function callThenAnswer(toolName: string) {
  const step = (request: ChatRequest): ScriptedResponse =>
    request.messages.some((m) => m.type === 'tool_result')
      ? reply.text('done')
      : reply.toolCalls([{ name: toolName, arguments: {}, callId: 'c1' }]);
  return new ScriptedModelProvider({ script: Array.from({ length: 10 }, () => step) });
}

/** Two instances (A, B) on one storage and lock table. */
async function twoInstances(
  provider: ScriptedModelProvider,
  tools: ReturnType<typeof defineTool>[],
  options: Partial<AgentHandlerOptions> = {},
) {
  const world = testWorld();
  const lock = new SharedSessionLock();
  const instance = async (name: string) => {
    const server = await startHandler({ provider, world, lock: lock.forHolder(name), tools }, { onError: () => {}, ...options });
    servers.push(server);
    return server;
  };
  return { world, lock, a: await instance('A'), b: await instance('B'), instance };
}

const storedOf = (world: ReturnType<typeof testWorld>, id: string) => world.storageFor('alice').loadSession(id);
const ended = (world: ReturnType<typeof testWorld>, id: string, turnId: string) =>
  eventually(async () => {
    const events = await storedOf(world, id);
    const end = metadata(events, 'turn_ended').find((v) => (v as { turnId: string }).turnId === turnId);
    return end ? { events, end: end as { status: string } } : null;
  });

/** A session of alice on `server` with a turn started, once `ready` settles. */
async function turnOn(server: { url: string }, input: string, ready: Promise<unknown>) {
  const session = await remoteFor(server.url, 'alice').newSession();
  const turn = await session.sendMessage(input);
  await within(ready, 'the turn gets where the test stops its instance');
  return { session, turn };
}

describe('a turn whose instance died goes on on the next instance that opens its session', () => {
  it('a mutating call that may have run answers "outcome unknown: the server stopped"; it never runs twice', async () => {
    const pay = flakyTool('pay', { mutating: true });
    const { world, lock, a, b } = await twoInstances(callThenAnswer('pay'), [pay.tool]);
    const { session, turn } = await turnOn(a, 'pay', pay.started);
    lock.crash('A');
    // Any request recovers it: here a plain read, as a reconnecting page makes.
    const read = await remoteFor(b.url, 'alice').resumeSession(session.id);
    expect(read.interruptedTurn).toBeNull();
    const { events, end } = await ended(world, session.id, turn.id);
    expect(end.status).toBe('completed');
    expect(pay.runs.count).toBe(1);
    expect(toolResults(events)).toEqual({ c1: TOOL_OUTCOME_UNKNOWN_SERVER_TEXT });
    expect(TOOL_OUTCOME_UNKNOWN_SERVER_TEXT).toContain('outcome unknown: the server stopped while it ran');
    expect(metadata(events, 'turn_recovery')).toEqual([{ turnId: turn.id, attempt: 1, at: expect.any(String) }]);
    expect(lock.holderOf(session.id)).toBe('B');
  });

  it('an idempotent tool runs again instead', async () => {
    const upsert = flakyTool('upsert', { mutating: true, idempotent: true });
    const { world, lock, a, b } = await twoInstances(callThenAnswer('upsert'), [upsert.tool]);
    const { session, turn } = await turnOn(a, 'upsert', upsert.started);
    lock.crash('A');
    await remoteFor(b.url, 'alice').resumeSession(session.id);
    const { events, end } = await ended(world, session.id, turn.id);
    expect(end.status).toBe('completed');
    expect(upsert.runs.count).toBe(2);
    expect(toolResults(events)).toEqual({ c1: 'upsert done' });
  });

  it('a read-only call runs again', async () => {
    const look = flakyTool('look', { mutating: false });
    const { world, lock, a, b } = await twoInstances(callThenAnswer('look'), [look.tool]);
    const { session, turn } = await turnOn(a, 'look', look.started);
    lock.crash('A');
    await remoteFor(b.url, 'alice').resumeSession(session.id);
    const { events } = await ended(world, session.id, turn.id);
    expect(look.runs.count).toBe(2);
    expect(toolResults(events)).toEqual({ c1: 'look done' });
  });

  it('continueTurn() on the other instance follows the recovered turn instead of 409', async () => {
    const look = flakyTool('look', { mutating: false });
    const { world, lock, a, b } = await twoInstances(callThenAnswer('look'), [look.tool]);
    const { session, turn } = await turnOn(a, 'look', look.started);
    lock.crash('A');
    const response = await fetch(`${b.url}/sessions/${session.id}/continue`, {
      method: 'POST',
      headers: { authorization: 'Bearer alice', 'content-type': 'application/json' },
      body: '{}',
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('youyou-turn-id')).toBe(turn.id);
    const text = await response.text();
    // The stream starts from the state (the recovered turn running), then follows it to its result.
    expect(text).toContain(`"turn":{"id":"${turn.id}","status":"running"}`);
    expect(text).toContain(`event: result\ndata: {"turnId":"${turn.id}","status":"completed"`);
    expect((await ended(world, session.id, turn.id)).end.status).toBe('completed');
  });

  it('a turn awaiting approval is parked: nothing is counted, and the decision sent to the other instance runs the tool once', async () => {
    const runs: number[] = [];
    const transfer = defineTool({ ...transferTool, execute: async ({ arguments: { amount } }) => (runs.push(amount), `moved ${amount}`) });
    const provider = new ScriptedModelProvider({
      script: [reply.toolCalls([{ name: 'transfer', arguments: { amount: 5 }, callId: 'c1' }]), reply.text('moved')],
    });
    const { world, lock, a, b } = await twoInstances(provider, [transfer]);
    const session = await remoteFor(a.url, 'alice').newSession();
    const turn = await session.sendMessage('move 5');
    await within(eventOf(turn, 'approval_requested'), 'the approval is asked');
    lock.crash('A');
    const onB = await remoteFor(b.url, 'alice').resumeSession(session.id);
    expect(onB.interruptedTurn?.pendingApprovals.map((p) => p.callId)).toEqual(['c1']);
    expect(metadata(await storedOf(world, session.id), 'turn_recovery')).toEqual([]);
    const decided = await fetch(`${b.url}/sessions/${session.id}/turns/${turn.id}/approvals/c1`, {
      method: 'POST',
      headers: { authorization: 'Bearer alice', 'content-type': 'application/json' },
      body: JSON.stringify({ approved: true }),
    });
    expect(decided.status).toBe(204);
    expect((await ended(world, session.id, turn.id)).end.status).toBe('completed');
    expect(runs).toEqual([5]);
  });

  it('three deaths in a row without progress end the turn RECOVERY_EXHAUSTED, exactly once', async () => {
    const never = new Promise<void>(() => {});
    const hang: ScriptedResponse = [{ type: 'text_delta', text: 'thinking' }, { type: 'wait', until: never }];
    const provider = new ScriptedModelProvider({ script: [hang, hang, hang, reply.text('never asked')] });
    const world = testWorld();
    const lock = new SharedSessionLock();
    const start = async (name: string) => {
      const server = await startHandler({ provider, world, lock: lock.forHolder(name) }, { onError: () => {} });
      servers.push(server);
      return server;
    };
    const first = await start('A');
    const session = await remoteFor(first.url, 'alice').newSession();
    const turn = await session.sendMessage('think');
    await within(eventOf(turn, 'text_delta'), 'the first run streams');
    let holder = 'A';
    for (const next of ['B', 'C']) {
      lock.crash(holder);
      const server = await start(next);
      await remoteFor(server.url, 'alice').resumeSession(session.id);
      await eventually(async () => provider.calls === ['B', 'C'].indexOf(next) + 2);
      holder = next;
    }
    lock.crash(holder);
    const last = await start('D');
    await remoteFor(last.url, 'alice').resumeSession(session.id);
    const { events, end } = await ended(world, session.id, turn.id);
    expect(end).toMatchObject({ status: 'failed' });
    // Two recoveries ran; the third was not run: the model was asked three times in all.
    expect(metadata(events, 'turn_recovery').map((v) => (v as { attempt: number }).attempt)).toEqual([1, 2]);
    expect(provider.calls).toBe(3);
    expect(metadata(events, 'turn_ended').filter((v) => (v as { turnId: string }).turnId === turn.id)).toHaveLength(1);
    // The session stays usable.
    const again = await remoteFor(last.url, 'alice').resumeSession(session.id);
    expect(again.interruptedTurn).toBeNull();
  });

  it('with recovery: false, the turn waits for someone to continue it', async () => {
    const look = flakyTool('look', { mutating: false });
    const { world, lock, a, b } = await twoInstances(callThenAnswer('look'), [look.tool], { recovery: false });
    const { session, turn } = await turnOn(a, 'look', look.started);
    lock.crash('A');
    const onB = await remoteFor(b.url, 'alice').resumeSession(session.id);
    expect(onB.interruptedTurn?.turnId).toBe(turn.id);
    expect(metadata(await storedOf(world, session.id), 'turn_recovery')).toEqual([]);
  });

  it('by sweep: with no request at all, find() lists the session and the turn completes', async () => {
    const look = flakyTool('look', { mutating: false });
    const provider = callThenAnswer('look');
    const world = testWorld();
    const lock = new SharedSessionLock();
    const a = await startHandler({ provider, world, lock: lock.forHolder('A'), tools: [look.tool] }, { onError: () => {} });
    servers.push(a);
    const { session, turn } = await turnOn(a, 'look', look.started);
    const listed: { sessionId: string; userId: string }[] = [];
    const b = await startHandler(
      { provider, world, lock: lock.forHolder('B'), tools: [look.tool] },
      { onError: () => {}, recovery: { find: async () => listed, sweepIntervalMs: 20 } },
    );
    servers.push(b);
    lock.crash('A');
    listed.push({ sessionId: session.id, userId: 'alice' });
    expect((await ended(world, session.id, turn.id)).end.status).toBe('completed');
    expect(look.runs.count).toBe(2);
  });
});
