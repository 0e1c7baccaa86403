/**
 * Commands answer success only once their effect is stored, and never act on a turn that is not
 * the session's: a cancel is 202 once the turn's `turn_ended` is stored (slow writes); a cancel
 * or an approval naming another turn changes nothing and takes nothing over (202, 409
 * `APPROVAL_NOT_PENDING`); a request that arrives while the instance closes or releases the
 * session waits for that to end, then opens the session again; `close` during an idle release
 * still runs `session_end`.
 */
import { describe, expect, it } from 'vitest';
import {
  InMemorySessionStorage,
  type SaveEventOptions,
  type SessionEvent,
  type SessionStorage,
} from '../../src/index.js';
import { reply, ScriptedModelProvider } from '../../src/testing/index.js';
import { testPlugin } from '../support/agent.js';
import { SharedSessionLock } from '../support/shared-lock.js';
import { deferred } from '../support/waits.js';
import { codeOf, eventOf, within } from './instances-world.js';
import {
  bearerAuthorize,
  remoteFor,
  serversClosedAfterEach,
  startHandler,
  testWorld,
  transferTool,
  type RunningServer,
} from './support.js';

const servers = serversClosedAfterEach();

async function post(server: RunningServer, path: string, body: unknown = {}): Promise<Response> {
  return fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { authorization: 'Bearer alice', 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

/** Waits (bounded) until `condition` holds. */
async function until(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 500 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  if (!condition()) throw new Error(`never happened: ${what}`);
}

/** An in-memory storage whose every `saveEvent` lands 150 ms after the call, in call order. */
function slowStorage(inner: InMemorySessionStorage): SessionStorage {
  let queue: Promise<void> = Promise.resolve();
  return {
    namespace: inner.namespace,
    saveEvent(sessionId: string, event: SessionEvent, options?: SaveEventOptions) {
      const write = queue.then(async () => {
        await new Promise((resolve) => setTimeout(resolve, 150));
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

const turnEnded = (events: readonly SessionEvent[] | null, turnId: string) =>
  (events ?? []).some(
    ({ payload }) =>
      payload.type === 'metadata' &&
      payload.key === 'turn_ended' &&
      (payload.value as { turnId?: unknown }).turnId === turnId,
  );

describe('cancel', () => {
  it("answers 202 only once the turn's turn_ended is stored", { timeout: 30_000 }, async () => {
    const inner = new InMemorySessionStorage({ namespace: 'alice' });
    const slow = slowStorage(inner);
    const hold = deferred();
    const provider = new ScriptedModelProvider({
      script: [
        [{ type: 'text_delta', text: 'Thinking' }, { type: 'wait', until: hold.promise }, ...reply.text('!')],
      ],
    });
    const server = await startHandler({ provider, world: { storageFor: () => slow } });
    servers.push(server);
    const session = await remoteFor(server.url, 'alice').newSession();
    const turn = await session.sendMessage('think');
    await within(eventOf(turn, 'text_delta'), 'the first delta');
    const answer = await post(server, `/sessions/${session.id}/turns/${turn.id}/cancel`);
    expect(answer.status).toBe(202);
    expect(turnEnded(await inner.loadSession(session.id), turn.id)).toBe(true);
    expect((await turn.result).status).toBe('cancelled');
    hold.resolve();
  });
});

describe('a command naming another turn', () => {
  it('a stale cancel or approval on a non-holding instance changes nothing and takes nothing over', async () => {
    const world = testWorld();
    const lock = new SharedSessionLock();
    const provider = new ScriptedModelProvider({
      script: [
        reply.toolCalls([{ name: 'transfer', arguments: { amount: 7 }, callId: 'c1' }]),
        reply.text('Moved.'),
      ],
    });
    const a = await startHandler({ provider, world, lock: lock.forHolder('A'), tools: [transferTool] });
    const b = await startHandler({ provider, world, lock: lock.forHolder('B'), tools: [transferTool] });
    servers.push(a, b);
    const session = await remoteFor(a.url, 'alice').newSession();
    const turn = await session.sendMessage('move 7');
    await within(eventOf(turn, 'approval_requested'), 'the approval request');
    const before = (await world.storageFor('alice').loadSession(session.id))!.length;

    for (const server of [b, a]) {
      const cancel = await post(server, `/sessions/${session.id}/turns/not-this-turn/cancel`);
      expect(cancel.status).toBe(202);
      const approval = await post(server, `/sessions/${session.id}/turns/not-this-turn/approvals/c1`, {
        approved: true,
      });
      expect([approval.status, await codeOf(approval)]).toEqual([409, 'APPROVAL_NOT_PENDING']);
    }
    expect(lock.holderOf(session.id)).toBe('A');
    expect(lock.steals).toBe(0);
    expect((await world.storageFor('alice').loadSession(session.id))!.length).toBe(before);
    expect(turn.pendingApprovals.map((p) => p.callId)).toEqual(['c1']);

    // The turn still waits on A, and goes on once decided there.
    await turn.approve('c1');
    expect((await turn.result).status).toBe('completed');
  });
});

describe('a request while the session is ending here', () => {
  it('a turn that arrives while the session closes waits for the close, then opens it again', async () => {
    const closing = deferred();
    const inClose = deferred();
    const plugin = testPlugin('slow-end', {
      session_end: async () => {
        inClose.resolve();
        await closing.promise;
      },
    });
    const lock = new SharedSessionLock();
    const provider = new ScriptedModelProvider({ script: [reply.text('after the close')] });
    let arrived = 0;
    const server = await startHandler(
      { provider, lock: lock.forHolder('A'), plugins: [plugin] },
      {
        authorize: (request) => {
          arrived++;
          return bearerAuthorize(request);
        },
      },
    );
    servers.push(server);
    const session = await remoteFor(server.url, 'alice').newSession();
    const closed = post(server, `/sessions/${session.id}/close`);
    await within(inClose.promise, 'session_end');
    const turn = post(server, `/sessions/${session.id}/turns`, { input: 'hello' });
    // The turn is in (and, read its body, finds the session closing) before the close may end.
    await until(() => arrived === 3, 'the turn request arrived');
    await new Promise((resolve) => setTimeout(resolve, 50));
    closing.resolve();
    expect((await closed).status).toBe(204);
    const answer = await turn;
    expect(answer.status).toBe(200);
    expect(await answer.text()).toContain('after the close');
    expect(lock.holderOf(session.id)).toBe('A');
  });

  it('a request during an idle release waits for the release to end, then opens the session again', async () => {
    const log: string[] = [];
    let arrived = 0;
    const gate = deferred();
    const plugin = testPlugin(
      'slow-release',
      { session_end: ({ data }) => void log.push(`session_end:${data.reason}`) },
      {
        shutdown: async () => {
          if (log.includes('release-end')) return;
          log.push('release-start');
          await gate.promise;
          log.push('release-end');
        },
      },
    );
    const lock = new SharedSessionLock();
    const server = await startHandler(
      {
        provider: new ScriptedModelProvider({ script: [reply.text('one')] }),
        lock: lock.forHolder('A'),
        plugins: [plugin],
      },
      {
        idleTimeoutMs: 20,
        authorize: (request) => {
          arrived++;
          return bearerAuthorize(request);
        },
      },
    );
    servers.push(server);
    const id = (await remoteFor(server.url, 'alice').newSession()).id;
    await until(() => log.includes('release-start'), 'the idle release began');
    const read = fetch(`${server.url}/sessions/${id}`, { headers: { authorization: 'Bearer alice' } }).then(
      (response) => (log.push(`read:${response.status}`), response),
    );
    const closed = post(server, `/sessions/${id}/close`).then(
      (response) => (log.push(`close:${response.status}`), response),
    );
    // Both requests are in; the release still hangs on the plugin.
    await until(() => arrived === 3, 'both requests arrived');
    gate.resolve();
    await Promise.all([read, closed]);
    expect(log.slice(0, 2)).toEqual(['release-start', 'release-end']);
    // The close opened the session again and closed it with its full close path.
    expect(log).toContain('session_end:close');
    expect(log).toContain('read:200');
    expect(log).toContain('close:204');
    expect(lock.holderOf(id)).toBe(null);
  });
});
