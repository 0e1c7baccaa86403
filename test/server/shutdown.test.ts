/**
 * `handler.close()`: from the call on, new sessions and turns are 503 `SERVER_BUSY`; a running
 * turn gets `timeoutMs` to end, then is interrupted without `turn_ended` and its session released
 * with the lock given back, so another instance on the same storage and lock resumes it at once
 * and continues the turn. A turn that ends in time ends as it would have.
 */
import { expect, it } from 'vitest';
import type { SessionEvent } from '../../src/index.js';
import { reply, ScriptedModelProvider } from '../../src/testing/index.js';
import { createAgentHandler } from '../../src/server.js';
import { SharedSessionLock } from '../support/shared-lock.js';
import { deferred } from '../support/waits.js';
import { codeOf, eventOf, eventually, within } from './instances-world.js';
import {
  agentFactory,
  bearerAuthorize,
  remoteFor,
  serve,
  serversClosedAfterEach,
  startHandler,
  testWorld,
  type RunningServer,
} from './support.js';

const servers = serversClosedAfterEach();

const post = (server: RunningServer, path: string, body: unknown = {}) =>
  fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { authorization: 'Bearer alice', 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

const recoveries = (events: readonly SessionEvent[] | null) =>
  (events ?? []).flatMap(({ payload }) =>
    payload.type === 'metadata' && payload.key === 'turn_recovery' ? [payload.value] : [],
  );

const endedTurns = (events: readonly SessionEvent[] | null) =>
  (events ?? []).flatMap(({ payload }) =>
    payload.type === 'metadata' && payload.key === 'turn_ended'
      ? [(payload.value as { turnId: string }).turnId]
      : [],
  );

it('interrupts a running turn after timeoutMs and gives its lease back; another instance resumes it', async () => {
  const world = testWorld();
  const lock = new SharedSessionLock();
  const never = new Promise<void>(() => {});
  const quick = deferred();
  const provider = new ScriptedModelProvider({
    script: [
      [
        { type: 'text_delta', text: 'Long' },
        { type: 'wait', until: never },
      ],
      [{ type: 'text_delta', text: 'Short' }, { type: 'wait', until: quick.promise }, ...reply.text('!')],
      reply.text('resumed'),
    ],
  });
  const handler = createAgentHandler({
    agent: agentFactory({ provider, world, lock: lock.forHolder('A') }),
    authorize: bearerAuthorize,
  });
  const a = await serve(handler);
  servers.push(a);
  const alice = remoteFor(a.url, 'alice');
  const long = await alice.newSession();
  const longTurn = await long.sendMessage('long');
  await within(eventOf(longTurn, 'text_delta'), 'the long turn streams');
  const short = await alice.newSession();
  const shortTurn = await short.sendMessage('short');
  await within(eventOf(shortTurn, 'text_delta'), 'the short turn streams');
  const idle = await alice.newSession();

  const closed = handler.close({ timeoutMs: 300 });
  // From the call on: no new session, no new turn.
  const create = await fetch(`${a.url}/sessions`, {
    method: 'POST',
    headers: { authorization: 'Bearer alice' },
  });
  expect([create.status, create.headers.get('retry-after'), await codeOf(create)]).toEqual([
    503,
    '1',
    'SERVER_BUSY',
  ]);
  const turn = await post(a, `/sessions/${idle.id}/turns`, { input: 'more' });
  expect([turn.status, await codeOf(turn)]).toEqual([503, 'SERVER_BUSY']);
  // A turn that ends within the time given ends as usual.
  quick.resolve();
  expect((await shortTurn.result).status).toBe('completed');
  await within(closed, 'handler.close()');

  // Every lease is given back, not left to run out.
  for (const session of [long, short, idle]) expect(lock.holderOf(session.id)).toBeNull();
  const stored = await world.storageFor('alice').loadSession(long.id);
  expect(endedTurns(stored)).not.toContain(longTurn.id);
  expect(endedTurns(await world.storageFor('alice').loadSession(short.id))).toContain(shortTurn.id);

  // Another instance on the same storage and lock opens it at once (no steal) and recovers the
  // turn under its id before it answers: nobody has to call continueTurn().
  const b = await startHandler({ provider, world, lock: lock.forHolder('B') });
  servers.push(b);
  const onB = await remoteFor(b.url, 'alice').resumeSession(long.id);
  expect(onB.interruptedTurn).toBeNull();
  expect(lock.steals).toBe(0);
  const ended = await eventually(async () => {
    const events = await world.storageFor('alice').loadSession(long.id);
    return endedTurns(events).includes(longTurn.id) ? events : null;
  });
  expect(recoveries(ended)).toEqual([{ turnId: longTurn.id, attempt: 1, at: expect.any(String) }]);
  expect(lock.holderOf(long.id)).toBe('B');
});
