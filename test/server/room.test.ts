/**
 * The room of one instance, reserved before anything is awaited: 50 creates at once against
 * `maxOpenSessions: 5` give exactly 5 sessions and 45 × 503 `SERVER_BUSY` (with `Retry-After`);
 * one user's creates beyond `maxOpenSessionsPerUser` are 429 `SERVER_BUSY`, also when they come
 * at once, while another user still gets a session; a session that ends gives its place back.
 */
import { describe, expect, it } from 'vitest';
import { ScriptedModelProvider } from '../../src/testing/index.js';
import { SharedSessionLock } from '../support/shared-lock.js';
import { remoteFor, startHandler, serversClosedAfterEach, type RunningServer } from './support.js';

const servers = serversClosedAfterEach();

/** `POST /sessions` as `userId`: the status, the error code (if any) and `Retry-After`. */
async function create(server: RunningServer, userId: string) {
  const response = await fetch(`${server.url}/sessions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${userId}`, 'content-type': 'application/json' },
    body: '{}',
  });
  const body = (await response.json()) as { id?: string; error?: { code: string } };
  return {
    status: response.status,
    code: body.error?.code ?? null,
    retryAfter: response.headers.get('retry-after'),
  };
}

const tally = (answers: { status: number }[]) => {
  const counts: Record<number, number> = {};
  for (const { status } of answers) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
};

describe('maxOpenSessions, reserved', () => {
  it('50 concurrent creates against 5 places: exactly 5 × 201, 45 × 503 SERVER_BUSY', async () => {
    const lock = new SharedSessionLock();
    const server = await startHandler(
      { provider: new ScriptedModelProvider(), lock: lock.forHolder('A') },
      { maxOpenSessions: 5, maxOpenSessionsPerUser: 100 },
    );
    servers.push(server);
    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => create(server, `user-${i % 10}`)));
    expect(tally(answers)).toEqual({ 201: 5, 503: 45 });
    for (const answer of answers.filter((a) => a.status === 503)) {
      expect(answer).toMatchObject({ code: 'SERVER_BUSY', retryAfter: '1' });
    }
  });
});

describe('maxOpenSessionsPerUser', () => {
  it("one user's sessions beyond it are 429 SERVER_BUSY, also at once; others still get theirs", async () => {
    const lock = new SharedSessionLock();
    const server = await startHandler(
      { provider: new ScriptedModelProvider(), lock: lock.forHolder('A') },
      { maxOpenSessions: 50, maxOpenSessionsPerUser: 3 },
    );
    servers.push(server);
    const answers = await Promise.all(Array.from({ length: 12 }, () => create(server, 'alice')));
    expect(tally(answers)).toEqual({ 201: 3, 429: 9 });
    for (const answer of answers.filter((a) => a.status === 429)) {
      expect(answer).toMatchObject({ code: 'SERVER_BUSY', retryAfter: '1' });
    }
    expect((await create(server, 'bob')).status).toBe(201);

    // A closed session gives its place back.
    const alice = remoteFor(server.url, 'alice');
    const { sessions } = await alice.listSessions(null, 10);
    await (await alice.resumeSession(sessions[0]!.id)).close();
    expect((await create(server, 'alice')).status).toBe(201);
    expect((await create(server, 'alice')).status).toBe(429);
  });
});
