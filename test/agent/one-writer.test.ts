/**
 * One writer per session, through the public API: two Agents ("tabs") on one storage. With a
 * session lock (Web Locks over a lock manager in this process), the second is refused or takes
 * the session over; with no lock at all, fencing in the storage alone stops the first writer. In
 * no case do two writers interleave one stored history.
 */
import { describe, expect, it } from 'vitest';
import {
  InMemorySessionStorage,
  WebLocksSessionLock,
  type AgentEvent,
  type SessionChange,
  type SessionLock,
} from '../../src/index.js';
import { reply, type ScriptStep } from '../../src/testing/index.js';
import { createTestAgent, testPlugin } from '../support/agent.js';
import { expectAgentError } from '../support/errors.js';
import { eventLabel, toolPairingProblems } from '../support/history.js';
import { deferred, promiseJobsRun } from '../support/waits.js';
import { FakeLockManager } from '../sync/fake-lock-manager.js';

/** Two "tabs": agents on one storage, with one shared lock manager (or none). */
async function twoTabs(options: { lock: boolean; scriptA?: ScriptStep[] }) {
  const storage = new InMemorySessionStorage({ namespace: `tabs-${Math.random()}` });
  const locks = new FakeLockManager() as unknown as LockManager;
  const lock = (): SessionLock | null =>
    options.lock ? new WebLocksSessionLock({ namespace: storage.namespace, locks }) : null;
  const ended: string[] = [];
  const a = await createTestAgent({
    sessionStorage: storage,
    script: options.scriptA ?? [reply.text('from A'), reply.text('A again')],
    plugins: [testPlugin('audit-a', { session_end: async () => void ended.push('A session_end') })],
    lock: lock(),
  });
  const b = await createTestAgent({
    sessionStorage: storage,
    script: [reply.text('from B'), reply.text('B again')],
    lock: lock(),
  });
  return { storage, a, b, ended };
}

const userTexts = async (storage: InMemorySessionStorage, id: string) =>
  ((await storage.loadSession(id)) ?? []).flatMap((e) =>
    e.payload.type === 'user_message' && e.payload.content[0]?.type === 'text'
      ? [e.payload.content[0].text]
      : [],
  );

describe('with a session lock', () => {
  it('a second tab cannot open a session the first one holds: SESSION_LOCKED', async () => {
    const { a, b } = await twoTabs({ lock: true });
    const session = await a.agent.newSession();
    await (
      await session.sendMessage('hello')
    ).result;
    await expectAgentError(b.agent.resumeSession(session.id), 'SESSION_LOCKED', session.id);
    await session.close();
    // Closed, so released (the lock manager hands it over asynchronously): now it opens.
    const again = await b.agent.resumeSession(session.id, { ifLocked: 'wait' });
    expect(again.id).toBe(session.id);
  });

  it("a steal takes it over: A emits session_lock_lost, cancels its turn, skips session_end, closes; A's late writes are not stored", async () => {
    const hold = deferred();
    const { a, b, storage, ended } = await twoTabs({
      lock: true,
      scriptA: [
        reply.text('first'),
        [
          { type: 'text_delta', text: 'half' },
          { type: 'wait', until: hold.promise },
        ],
      ],
    });
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
    await session.close(); // already closing: resolves once closed
    const lost = seen.filter((e) => e.payload.type === 'session_lock_lost');
    expect(lost).toEqual([
      expect.objectContaining({ turnId: null, payload: { type: 'session_lock_lost', by: 'steal' } }),
    ]);
    expect(seen.map((e) => e.payload.type)).toContain('turn_cancelled');
    expect(ended).toEqual([]);
    await expectAgentError(session.sendMessage('three'), 'SESSION_CLOSED');

    // B found A's second turn interrupted, with the draft A had saved; sending discards it (the
    // partial answer is kept as incomplete). A's cancelled turn wrote nothing after the steal.
    expect(taken.interruptedTurn).toMatchObject({ reason: 'awaiting_model', partialText: 'half' });
    await (
      await taken.sendMessage('from B')
    ).result;
    const stored = (await storage.loadSession(session.id))!;
    expect(await userTexts(storage, session.id)).toEqual(['one', 'two', 'from B']);
    expect(toolPairingProblems(taken.messages)).toEqual([]);
    const answers = stored.flatMap((e) =>
      e.payload.type === 'assistant_message' && e.payload.content[0]?.type === 'text'
        ? [`${e.payload.content[0].text}:${e.payload.status}`]
        : [],
    );
    expect(answers).toEqual(['first:complete', 'half:incomplete', 'from B:complete']);
    expect(stored.map(eventLabel).filter((l) => l === 'metadata:turn_ended')).toHaveLength(3);
    // A's agent is free for another session.
    expect((await a.agent.newSession()).id).not.toBe(session.id);
  });

  it("'wait' opens the session once the holder closes it", async () => {
    const { a, b } = await twoTabs({ lock: true });
    const session = await a.agent.newSession();
    let opened = false;
    const waiting = b.agent.resumeSession(session.id, { ifLocked: 'wait' }).then((s) => ((opened = true), s));
    await promiseJobsRun();
    expect(opened).toBe(false);
    await session.close();
    expect((await waiting).id).toBe(session.id);
  });

  it("an aborted 'wait' rejects with the signal's reason and leaves nothing held", async () => {
    const { a, b } = await twoTabs({ lock: true });
    const session = await a.agent.newSession();
    const controller = new AbortController();
    const waiting = b.agent.resumeSession(session.id, { ifLocked: 'wait', signal: controller.signal });
    controller.abort(new Error('user left'));
    await expect(waiting).rejects.toThrow('user left');
    await session.close();
    expect((await b.agent.resumeSession(session.id, { ifLocked: 'wait' })).id).toBe(session.id);
  });

  it('rejects bad options with INVALID_INPUT', async () => {
    const { b } = await twoTabs({ lock: true });
    await expectAgentError(
      b.agent.resumeSession('x', { ifLocked: 'force' as never }),
      'INVALID_INPUT',
      'ifLocked',
    );
    await expectAgentError(b.agent.resumeSession('x', { signal: {} as never }), 'INVALID_INPUT', 'signal');
  });

  it('a lock that never answers counts as held after storageTimeoutMs', async () => {
    const storage = new InMemorySessionStorage();
    const { agent } = await createTestAgent({
      sessionStorage: storage,
      lock: { acquire: () => new Promise(() => {}) },
      config: { storageTimeoutMs: 30 },
    });
    await expectAgentError(agent.newSession(), 'SESSION_LOCKED');
  });
});

describe('with no lock (fencing alone)', () => {
  it('the two-tab race no longer interleaves: the tab that opened last owns the session, the other is told and closes', async () => {
    const { a, b, storage } = await twoTabs({ lock: false });
    const sessionA = await a.agent.newSession();
    await (
      await sessionA.sendMessage('first (A)')
    ).result;
    const sessionB = await b.agent.resumeSession(sessionA.id);
    const seenA: string[] = [];
    sessionA.events.subscribe((e) => seenA.push(e.payload.type));

    // Both send at once, as two tabs would.
    const [turnA, turnB] = await Promise.all([
      sessionA.sendMessage('second (A)'),
      sessionB.sendMessage('second (B)'),
    ]);
    await Promise.all([turnA.result, turnB.result]);
    await sessionA.close();
    expect(seenA).toContain('session_lock_lost');

    const stored = (await storage.loadSession(sessionA.id))!;
    expect(await userTexts(storage, sessionA.id)).toEqual(['first (A)', 'second (B)']);
    const replayed = await (
      await createTestAgent({ sessionStorage: storage, lock: null })
    ).agent.resumeSession(sessionA.id);
    expect(toolPairingProblems(replayed.messages)).toEqual([]);
    expect(replayed.messages.map((m) => m.type)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(stored.some((e) => JSON.stringify(e).includes('second (A)'))).toBe(false);
  });
});

describe('agent.sessionChanges', () => {
  it("tells tab B about tab A's appends, locks and releases, not about B's own", async () => {
    const { a, b } = await twoTabs({ lock: true });
    const heard: SessionChange[] = [];
    b.agent.sessionChanges.subscribe((change) => heard.push(change));
    const session = await a.agent.newSession();
    await (
      await session.sendMessage('hello')
    ).result;
    await session.close();
    await new Promise((resolve) => setTimeout(resolve, 50)); // the channel delivers asynchronously
    const kinds = heard.filter((c) => c.sessionId === session.id).map((c) => c.kind);
    expect(kinds[0]).toBe('locked');
    expect(kinds).toContain('appended');
    expect(kinds.at(-1)).toBe('released');

    heard.length = 0;
    const own = await b.agent.newSession();
    await own.close();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(heard.filter((c) => c.sessionId === own.id)).toEqual([]);
    await Promise.all([a.agent.shutdown(), b.agent.shutdown()]);
  });
});
