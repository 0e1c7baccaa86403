/**
 * The handler's session lifecycle: a session nobody uses for `idleTimeoutMs` is released as a
 * closed page is (lock given up, no `session_end`) and opens again on the next request; an open
 * stream keeps it; only `close` closes it (with `session_end`), and a later request opens it
 * again; `maxOpenSessions` refuses more with 503 `SERVER_BUSY`, released sessions not counted;
 * the caller's sessions are listed and deleted.
 */
import { describe, expect, it } from 'vitest';
import { reply, ScriptedModelProvider } from '../../src/testing/index.js';
import { testPlugin } from '../support/agent.js';
import { deferred } from '../support/waits.js';
import { SharedSessionLock } from '../support/shared-lock.js';
import { remoteFor, startHandler, serversClosedAfterEach } from './support.js';

const servers = serversClosedAfterEach();

/** Waits (bounded) until `condition` holds. */
async function eventually(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 500 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  if (!condition()) throw new Error(`never happened: ${what}`);
}

function counting() {
  const ends: string[] = [];
  const plugin = testPlugin('ends', { session_end: ({ data }) => void ends.push(data.reason) });
  return { ends, plugin };
}

describe('idle release and close', () => {
  it('releases an idle session without session_end, opens it again, and closes it only on close', async () => {
    const lock = new SharedSessionLock();
    const { ends, plugin } = counting();
    const provider = new ScriptedModelProvider({ script: [reply.text('one'), reply.text('two')] });
    const server = await startHandler(
      { provider, lock: lock.forHolder('A'), plugins: [plugin] },
      { idleTimeoutMs: 30 },
    );
    servers.push(server);
    const session = await remoteFor(server.url, 'alice').newSession();
    expect((await (await session.sendMessage('first')).result).status).toBe('completed');
    await eventually(() => lock.holderOf(session.id) === null, 'the idle session released');
    expect(ends).toEqual([]);

    // The next request opens it again, with its history.
    const turn = await session.sendMessage('second');
    expect(lock.holderOf(session.id)).toBe('A');
    expect((await turn.result).status).toBe('completed');
    expect(session.messages.filter((m) => m.type === 'user')).toHaveLength(2);

    await session.close();
    expect(ends).toEqual(['close']);
    expect(lock.holderOf(session.id)).toBeNull();
    // A later request opens the closed session again, as resumeSession does.
    const again = await remoteFor(server.url, 'alice').resumeSession(session.id);
    expect(again.messages.filter((m) => m.type === 'assistant')).toHaveLength(2);
    expect(lock.holderOf(session.id)).toBe('A');
  });

  it('an open stream keeps the session', async () => {
    const lock = new SharedSessionLock();
    const server = await startHandler(
      { provider: new ScriptedModelProvider(), lock: lock.forHolder('A') },
      { idleTimeoutMs: 20 },
    );
    servers.push(server);
    const session = await remoteFor(server.url, 'alice').newSession();
    const watching = session.conversation.subscribe(() => {});
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(lock.holderOf(session.id)).toBe('A');
    watching.unsubscribe();
    await eventually(() => lock.holderOf(session.id) === null, 'released once nobody watches');
  });
});

describe('one turn at a time', () => {
  it('a turn while one runs is 409 TURN_BUSY; the running one goes on', async () => {
    const release = deferred();
    const provider = new ScriptedModelProvider({
      script: [
        [
          { type: 'text_delta', text: 'Wait' },
          { type: 'wait', until: release.promise },
          { type: 'done', finishReason: 'stop' },
        ],
      ],
    });
    const server = await startHandler({ provider });
    servers.push(server);
    const session = await remoteFor(server.url, 'alice').newSession();
    const first = await session.sendMessage('one');
    await expect(session.sendMessage('two')).rejects.toMatchObject({ code: 'TURN_BUSY' });
    const raw = await fetch(`${server.url}/sessions/${session.id}/turns`, {
      method: 'POST',
      headers: { authorization: 'Bearer alice', 'content-type': 'application/json' },
      body: JSON.stringify({ input: 'three' }),
    });
    expect([raw.status, ((await raw.json()) as { error: { code: string } }).error.code]).toEqual([
      409,
      'TURN_BUSY',
    ]);
    release.resolve();
    expect((await first.result).status).toBe('completed');
  });
});

describe('maxOpenSessions', () => {
  it('refuses a session beyond it with 503 SERVER_BUSY; a released one does not count', async () => {
    const lock = new SharedSessionLock();
    const server = await startHandler(
      { provider: new ScriptedModelProvider(), lock: lock.forHolder('A') },
      { maxOpenSessions: 2, idleTimeoutMs: 60_000 },
    );
    servers.push(server);
    const agent = remoteFor(server.url, 'alice');
    const first = await agent.newSession();
    await agent.newSession();
    await expect(agent.newSession()).rejects.toMatchObject({ code: 'SERVER_BUSY' });
    const raw = await fetch(`${server.url}/sessions`, {
      method: 'POST',
      headers: { authorization: 'Bearer alice' },
    });
    expect([raw.status, raw.headers.get('retry-after')]).toEqual([503, '1']);
    await raw.text();
    await first.close();
    await agent.newSession();
  });
});

describe('listing and deleting', () => {
  it("lists the caller's sessions only, and deletes one", async () => {
    const server = await startHandler({
      provider: new ScriptedModelProvider({ script: [reply.text('a'), reply.text('b')] }),
    });
    servers.push(server);
    const alice = remoteFor(server.url, 'alice');
    const bob = remoteFor(server.url, 'bob');
    const one = await alice.newSession();
    await (
      await one.sendMessage('first one')
    ).result;
    const two = await alice.newSession();
    await (
      await two.sendMessage('second one')
    ).result;
    await bob.newSession();
    const page = await alice.listSessions(null, 10);
    expect(page.sessions.map((s) => s.id).sort()).toEqual([one.id, two.id].sort());
    expect(page.nextCursor).toBeNull();
    const firstPage = await alice.listSessions(null, 1);
    expect(firstPage.sessions).toHaveLength(1);
    expect(firstPage.nextCursor).not.toBeNull();
    await alice.deleteSession(one.id);
    expect((await alice.listSessions()).sessions.map((s) => s.id)).toEqual([two.id]);
    await expect(alice.resumeSession(one.id)).rejects.toMatchObject({ code: 'SESSION_NOT_FOUND' });
    await expect(bob.deleteSession(two.id)).rejects.toMatchObject({ code: 'SESSION_NOT_FOUND' });
  });
});
