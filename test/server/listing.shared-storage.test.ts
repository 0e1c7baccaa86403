/**
 * `GET /sessions` with two users in one shared storage (no namespace): each page holds `limit`
 * of the caller's sessions while there are more, the pages together hold all of them once, and
 * no cursor decodes to another user's session id or time.
 */
import { expect, it } from 'vitest';
import { InMemorySessionStorage, type SessionSummary } from '../../src/index.js';
import { ScriptedModelProvider } from '../../src/testing/index.js';
import { startHandler, serversClosedAfterEach, type RunningServer } from './support.js';

const servers = serversClosedAfterEach();

async function listPage(server: RunningServer, userId: string, cursor: string | null, limit: number) {
  const query = new URLSearchParams({ limit: String(limit), ...(cursor !== null && { cursor }) });
  const response = await fetch(`${server.url}/sessions?${query}`, {
    headers: { authorization: `Bearer ${userId}` },
  });
  expect(response.status).toBe(200);
  return (await response.json()) as { sessions: SessionSummary[]; nextCursor: string | null };
}

async function create(server: RunningServer, userId: string): Promise<string> {
  const response = await fetch(`${server.url}/sessions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${userId}` },
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { id: string }).id;
}

/** What a cursor says, whatever its encoding: its text and its base64url decoding. */
const readable = (cursor: string) => `${cursor} ${Buffer.from(cursor, 'base64url').toString('utf8')}`;

it(
  "pages are full of the caller's sessions; cursors never name the other user's",
  { timeout: 30_000 },
  async () => {
    const shared = new InMemorySessionStorage();
    const server = await startHandler(
      { provider: new ScriptedModelProvider(), world: { storageFor: () => shared } },
      { maxOpenSessions: 100, maxOpenSessionsPerUser: 100 },
    );
    servers.push(server);
    // Newest first: bob's sessions sit between runs of alice's.
    const mine: Record<string, string[]> = { alice: [], bob: [] };
    for (const userId of [
      'alice',
      'alice',
      'alice',
      'bob',
      'alice',
      'alice',
      'bob',
      'bob',
      'alice',
      'alice',
      'alice',
      'bob',
    ]) {
      mine[userId]!.push(await create(server, userId));
      await new Promise((resolve) => setTimeout(resolve, 2)); // distinct update times
    }
    const summaries = (await shared.listSessions(null, 100)).sessions;
    const timeOf = new Map(summaries.map((s) => [s.id, s.updatedAt]));

    for (const [userId, other] of [
      ['alice', 'bob'],
      ['bob', 'alice'],
    ] as const) {
      for (const limit of [1, 2, 3]) {
        const seen: string[] = [];
        let cursor: string | null = null;
        for (let page = 0; page < 20; page++) {
          const answer = await listPage(server, userId, cursor, limit);
          seen.push(...answer.sessions.map((s) => s.id));
          if (answer.nextCursor === null) break;
          // A page with a cursor after it is full.
          expect(answer.sessions).toHaveLength(limit);
          const text = readable(answer.nextCursor);
          for (const id of mine[other]!) {
            expect(text).not.toContain(id);
            expect(text).not.toContain(timeOf.get(id)!);
          }
          cursor = answer.nextCursor;
        }
        expect([userId, limit, [...seen].sort()]).toEqual([userId, limit, [...mine[userId]!].sort()]);
      }
    }
  },
);
