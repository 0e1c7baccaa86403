/**
 * Two instances on one storage. With writes that take 200 ms each, a new turn sent to instance B
 * while instance A streams one is still 409 `TURN_BUSY`. B tells a running turn by the stored
 * history, so A answers a new turn only once that turn's start is stored; before, A answered
 * at once and B, finding no start yet, took the session over and cut A's turn off. And a copy
 * that has not yet heard that another instance took its session (its lease's loss is on its way)
 * finds out when the storage refuses its turn's start: that turn is 409, not a 200 that fails.
 */
import { expect, it } from 'vitest';
import {
  InMemorySessionStorage,
  type SaveEventOptions,
  type SessionEvent,
  type SessionLock,
  type SessionStorage,
} from '../../src/index.js';
import { ScriptedModelProvider } from '../../src/testing/index.js';
import { SharedSessionLock } from '../support/shared-lock.js';
import { inMemoryWorld, remoteFor, startHandler, serversClosedAfterEach } from './support.js';

/** An in-memory storage whose every `saveEvent` lands 200 ms after the call, in call order. */
function slowStorage(namespace: string): SessionStorage {
  const inner = new InMemorySessionStorage({ namespace });
  let queue: Promise<void> = Promise.resolve();
  return {
    namespace,
    saveEvent(sessionId: string, event: SessionEvent, options?: SaveEventOptions) {
      const write = queue.then(async () => {
        await new Promise((resolve) => setTimeout(resolve, 200));
        await inner.saveEvent(sessionId, event, options);
      });
      queue = write.catch(() => {});
      return write;
    },
    loadSession: (sessionId) => inner.loadSession(sessionId),
    listSessions: (cursor, limit) => inner.listSessions(cursor, limit),
    findSessions: (query) => inner.findSessions(query),
    deleteSession: (sessionId) => inner.deleteSession(sessionId),
    claimWriter: (sessionId) => inner.claimWriter(sessionId),
    saveDraft: (sessionId, draft) => inner.saveDraft(sessionId, draft),
    loadDraft: (sessionId) => inner.loadDraft(sessionId),
  };
}

const servers = serversClosedAfterEach();

it(
  'a new turn on B while A streams one is 409 TURN_BUSY, with slow writes',
  { timeout: 30_000 },
  async () => {
    const storages = new Map<string, SessionStorage>();
    const world = {
      storageFor: (userId: string) => {
        if (!storages.has(userId)) storages.set(userId, slowStorage(userId));
        return storages.get(userId)!;
      },
    };
    const lock = new SharedSessionLock();
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const provider = new ScriptedModelProvider({
      script: [
        [
          { type: 'text_delta', text: 'Thinking' },
          { type: 'wait', until: held },
          { type: 'done', finishReason: 'stop' },
        ],
      ],
    });
    const a = await startHandler({ provider, world, lock: lock.forHolder('A') });
    const b = await startHandler({ provider, world, lock: lock.forHolder('B') });
    servers.push(a, b);

    const session = await remoteFor(a.url, 'alice').newSession();
    const turn = await session.sendMessage('first');
    await new Promise<void>((resolve) =>
      turn.events.subscribe((e) => e.payload.type === 'text_delta' && resolve()),
    );
    const second = await fetch(`${b.url}/sessions/${session.id}/turns`, {
      method: 'POST',
      headers: { authorization: 'Bearer alice', 'content-type': 'application/json' },
      body: JSON.stringify({ input: 'second' }),
    });
    expect(second.status).toBe(409);
    expect((await second.json()).error.code).toBe('TURN_BUSY');

    release();
    expect((await turn.result).status).toBe('completed');
  },
);

/** A lock that grants every request at once and never tells a holder it lost: only the storage's fencing is left. */
const noticeNothingLock: SessionLock = {
  acquire: async () => ({ lost: new Promise<void>(() => {}), release: () => {} }),
};

it('a copy that has not heard of a take-over answers 409 for a new turn, and its turn never runs', async () => {
  const world = inMemoryWorld();
  let release: () => void = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  const provider = new ScriptedModelProvider({
    script: [
      [
        { type: 'text_delta', text: 'one' },
        { type: 'done', finishReason: 'stop' },
      ],
      [
        { type: 'text_delta', text: 'two' },
        { type: 'wait', until: held },
        { type: 'done', finishReason: 'stop' },
      ],
    ],
  });
  const a = await startHandler({ provider, world, lock: noticeNothingLock });
  const b = await startHandler({ provider, world, lock: noticeNothingLock });
  servers.push(a, b);

  const onA = await remoteFor(a.url, 'alice').newSession();
  expect((await (await onA.sendMessage('first')).result).status).toBe('completed');
  // B takes the session over with a turn of its own; A keeps its copy, unaware.
  const onB = await remoteFor(b.url, 'alice').resumeSession(onA.id);
  const second = await onB.sendMessage('second');
  await new Promise<void>((resolve) =>
    second.events.subscribe((e) => e.payload.type === 'text_delta' && resolve()),
  );

  const third = await fetch(`${a.url}/sessions/${onA.id}/turns`, {
    method: 'POST',
    headers: { authorization: 'Bearer alice', 'content-type': 'application/json' },
    body: JSON.stringify({ input: 'third' }),
  });
  expect(third.status).toBe(409);
  expect((await third.json()).error.code).toBe('TURN_BUSY');

  release();
  expect((await second.result).status).toBe('completed');
  const stored = (await world.storageFor('alice').loadSession(onA.id)) ?? [];
  const users = stored.flatMap((e) =>
    e.payload.type === 'user_message' ? e.payload.content.map((c) => (c.type === 'text' ? c.text : '')) : [],
  );
  expect(users).toEqual(['first', 'second']);
});
