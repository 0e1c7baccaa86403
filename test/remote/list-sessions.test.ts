/**
 * `RemoteAgent.listSessions` pages by itself: any `limit` up to 1,000 works although the server
 * gives at most 100 sessions a page; `nextCursor` continues after the last one listed.
 */
import { describe, expect, it } from 'vitest';
import { RemoteAgent } from '../../src/remote.js';
import { json, wireServer } from './support/wire-server.js';

const summary = (n: number) => ({
  id: `s${String(n).padStart(3, '0')}`,
  title: `Session ${n}`,
  modelId: 'm',
  createdAt: '2026-12-01T00:00:00.000Z',
  updatedAt: '2026-12-01T00:00:00.000Z',
  turnCount: 1,
  eventCount: 2,
});

/** A server of `count` sessions that refuses a limit over 100, as the handler does; the cursor is an offset. */
async function listingServer(count: number) {
  const limits: number[] = [];
  const url = await wireServer((req, res) => {
    const query = new URL(req.url!, 'http://x').searchParams;
    const limit = Number(query.get('limit'));
    limits.push(limit);
    if (limit < 1 || limit > 100)
      return json(res, 400, { error: { code: 'INVALID_INPUT', message: 'limit' } });
    const from = Number(query.get('cursor') ?? 0);
    const to = Math.min(count, from + limit);
    json(res, 200, {
      sessions: Array.from({ length: to - from }, (_, i) => summary(from + i)),
      nextCursor: to < count ? String(to) : null,
    });
  });
  return { agent: new RemoteAgent({ url }), limits };
}

describe('listSessions', () => {
  it('(null, 250) over 300 sessions lists the first 250 in three pages; its cursor lists the other 50', async () => {
    const { agent, limits } = await listingServer(300);
    const first = await agent.listSessions(null, 250);
    expect(first.sessions.map((s) => s.id)).toEqual(Array.from({ length: 250 }, (_, i) => summary(i).id));
    expect(limits).toEqual([100, 100, 50]);
    const rest = await agent.listSessions(first.nextCursor, 250);
    expect(rest.sessions.map((s) => s.id)).toEqual(Array.from({ length: 50 }, (_, i) => summary(250 + i).id));
    expect(rest.nextCursor).toBeNull();
  });

  it('refuses a limit over 1,000 with INVALID_INPUT, asking nothing', async () => {
    const { agent, limits } = await listingServer(10);
    await expect(agent.listSessions(null, 1_001)).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    expect(limits).toEqual([]);
  });
});
