/**
 * Several instances on one storage: two handlers in one process share the session storage and a
 * session lock (the in-process stand-in for a database lock). A session is open on one instance
 * at a time; a command on the other takes it over, except a new turn or continue while a turn
 * runs there (409 TURN_BUSY); reads never take over; an approval decided on the other instance
 * continues the turn there; a cancel there discards it; and a turn parked for approval outlives
 * the instance that ran it: the client keeps the same turn, and approves, continues or discards it
 * on another.
 */
import { describe, expect, it } from 'vitest';
import { reply, ScriptedModelProvider, type ScriptItem, type ScriptStep } from '../../src/testing/index.js';
import { SharedSessionLock } from '../support/shared-lock.js';
import {
  testWorld,
  remoteFor,
  startHandler,
  type RunningServer,
  serversClosedAfterEach,
  transferTool as transfer,
} from './support.js';

const servers = serversClosedAfterEach();

/** Two instances, A and B, on one storage and one lock. */
async function twoInstances(script: ScriptStep[]) {
  const world = testWorld();
  const lock = new SharedSessionLock();
  const provider = new ScriptedModelProvider({ script });
  const a = await startHandler({ provider, world, lock: lock.forHolder('A'), tools: [transfer] });
  const b = await startHandler({ provider, world, lock: lock.forHolder('B'), tools: [transfer] });
  servers.push(a, b);
  return { world, lock, a, b };
}

async function post(server: RunningServer, path: string, body?: unknown) {
  const response = await fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { authorization: 'Bearer alice', 'content-type': 'application/json' },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  return response;
}

/** Reads an SSE answer until a frame whose text contains `marker`; returns everything read. */
async function readUntil(response: Response, marker: string): Promise<string> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  while (!text.includes(marker)) {
    const { done, value } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  void reader.cancel();
  return text;
}

/** What `check` answers once it answers something; fails after 10 s. */
async function waitFor<T>(check: () => T | null | undefined | false): Promise<T> {
  for (const until = Date.now() + 10_000; ; ) {
    const value = check();
    if (value) return value;
    if (Date.now() > until) throw new Error('not within 10 s');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * A turn that asked to move `amount` (call `callId`) through A, then waits for approval when A
 * dies: its lease goes with it, its connections drop, and the client turns to B.
 */
async function parkedOnCrash(amount: number, callId: string, answer: string) {
  const { lock, a, b } = await twoInstances([
    reply.toolCalls([{ name: 'transfer', arguments: { amount }, callId }]),
    reply.text(answer),
  ]);
  let target = a.origin;
  const routed: typeof fetch = (input, init) =>
    fetch(String(input).replace(/^http:\/\/127\.0\.0\.1:\d+/, target), init);
  const session = await remoteFor(`${a.origin}/agent`, 'alice', routed).newSession();
  const turn = await session.sendMessage(`move ${amount}`);
  await new Promise<void>((resolve) =>
    turn.events.subscribe((e) => e.payload.type === 'approval_requested' && resolve()),
  );
  lock.crash('A');
  target = b.origin;
  await a.close();
  return { lock, session, turn };
}

const never = new Promise(() => {});
const hanging: ScriptItem[] = [
  { type: 'text_delta', text: 'Thinking' },
  { type: 'wait', until: never },
];

describe('two instances on one storage', () => {
  it('a command on the other instance takes the session over; reads do not', async () => {
    const { lock, a, b } = await twoInstances([reply.text('one')]);
    const session = await remoteFor(a.url, 'alice').newSession();
    expect(lock.holderOf(session.id)).toBe('A');
    const read = await fetch(`${b.url}/sessions/${session.id}`, {
      headers: { authorization: 'Bearer alice' },
    });
    expect(read.status).toBe(200);
    const events = await fetch(`${b.url}/sessions/${session.id}/events`, {
      headers: { authorization: 'Bearer alice' },
    });
    expect(await readUntil(events, 'event: state')).toContain('event: state');
    expect(lock.holderOf(session.id)).toBe('A');
    expect((await post(b, `/sessions/${session.id}/discard`)).status).toBe(204);
    expect(lock.holderOf(session.id)).toBe('B');
    expect(lock.steals).toBe(1);
    // A turn on B now runs there.
    const onB = await remoteFor(b.url, 'alice').resumeSession(session.id);
    expect((await (await onB.sendMessage('go')).result).status).toBe('completed');
  });

  it('a new turn or continue while a turn runs on the other instance is 409 TURN_BUSY', async () => {
    const { lock, a, b } = await twoInstances([hanging]);
    const session = await remoteFor(a.url, 'alice').newSession();
    const turn = await session.sendMessage('think');
    await new Promise<void>((resolve) =>
      turn.events.subscribe((e) => e.payload.type === 'text_delta' && resolve()),
    );
    for (const [path, body] of [
      [`/sessions/${session.id}/turns`, { input: 'me too' }],
      [`/sessions/${session.id}/continue`, {}],
    ] as const) {
      const answer = await post(b, path, body);
      expect([
        path,
        answer.status,
        ((await answer.json()) as { error: { code: string } }).error.code,
      ]).toEqual([path, 409, 'TURN_BUSY']);
    }
    expect(lock.holderOf(session.id)).toBe('A');
    turn.cancel();
    expect((await turn.result).status).toBe('cancelled');
  });

  it('an approval decided on the other instance continues the turn there', async () => {
    const { lock, a, b } = await twoInstances([
      reply.toolCalls([{ name: 'transfer', arguments: { amount: 7 }, callId: 'c1' }]),
      reply.text('Moved it.'),
    ]);
    const session = await remoteFor(a.url, 'alice').newSession();
    const turn = await session.sendMessage('move 7');
    await new Promise<void>((resolve) =>
      turn.events.subscribe((e) => e.payload.type === 'approval_requested' && resolve()),
    );
    const decided = await post(b, `/sessions/${session.id}/turns/${turn.id}/approvals/c1`, {
      approved: true,
    });
    expect(decided.status).toBe(204);
    expect(lock.holderOf(session.id)).toBe('B');
    const follow = await fetch(`${b.url}/sessions/${session.id}/events`, {
      headers: { authorization: 'Bearer alice' },
    });
    const text = await readUntil(follow, '"Moved it."');
    expect(text).toContain('moved 7');
    const onB = await remoteFor(b.url, 'alice').resumeSession(session.id);
    expect(onB.messages.map((m) => m.type)).toEqual([
      'user',
      'assistant',
      'tool_call',
      'tool_result',
      'assistant',
    ]);
  });

  it('a cancel on the other instance discards the turn taken over', async () => {
    const { world, a, b } = await twoInstances([hanging]);
    const session = await remoteFor(a.url, 'alice').newSession();
    const turn = await session.sendMessage('think');
    await new Promise<void>((resolve) =>
      turn.events.subscribe((e) => e.payload.type === 'text_delta' && resolve()),
    );
    expect((await post(b, `/sessions/${session.id}/turns/${turn.id}/cancel`)).status).toBe(202);
    const stored = (await world.storageFor('alice').loadSession(session.id))!;
    const ended = stored.filter((e) => e.payload.type === 'metadata' && e.payload.key === 'turn_ended');
    expect(ended.map((e) => (e.payload as { value: { status: string } }).value.status)).toEqual([
      'cancelled',
    ]);
  });

  it('a turn parked for approval outlives its instance: the client keeps it and approves it on another', async () => {
    const { lock, session, turn } = await parkedOnCrash(3, 'c3', 'Moved 3.');
    // The turn is parked, not lost: whichever instance the client reaches shows it waiting.
    const active = await waitFor(() => (lock.holderOf(session.id) === 'B' ? session.activeTurn : null));
    expect(active).toBe(turn);
    expect(turn.settled).toBe(false);
    expect(turn.pendingApprovals).toMatchObject([{ callId: 'c3', toolName: 'transfer' }]);
    await active.approve('c3');
    const result = await turn.result;
    expect(result.error).toBeUndefined();
    expect(result.status).toBe('completed');
    expect(session.messages.map((m) => m.type)).toEqual([
      'user',
      'assistant',
      'tool_call',
      'tool_result',
      'assistant',
    ]);
    expect(session.interruptedTurn).toBeNull();
    expect(session.activeTurn).toBeNull();
  });

  it('continueTurn() of a parked turn goes on with the same turn object', async () => {
    const { lock, session, turn } = await parkedOnCrash(5, 'c5', 'Moved 5.');
    await waitFor(() => session.interruptedTurn?.turnId === turn.id);
    const continued = await session.continueTurn();
    expect(continued).toBe(turn);
    await waitFor(() => continued.pendingApprovals.length === 1);
    await continued.approve('c5');
    const result = await turn.result;
    expect(result.status).toBe('completed');
    expect(lock.holderOf(session.id)).toBe('B');
  });

  it('discardInterruptedTurn() after the instance that ran the turn is gone', async () => {
    const { lock, session, turn } = await parkedOnCrash(4, 'c4', 'Nothing moved.');
    await waitFor(() => session.interruptedTurn?.turnId === turn.id);
    await session.discardInterruptedTurn();
    expect(session.interruptedTurn).toBeNull();
    // The turn waited for here ends as the stored history has it: cancelled.
    expect((await turn.result).status).toBe('cancelled');
    const last = session.messages.at(-1);
    expect(last).toMatchObject({ type: 'tool_result', callId: 'c4', isError: true });
    // The session goes on with a new turn on B.
    expect((await (await session.sendMessage('never mind')).result).status).toBe('completed');
  });
});
