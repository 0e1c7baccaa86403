/**
 * Listing and paging: newest first, each session exactly once, stable while sessions change.
 * @module
 */
import type { SessionStorage } from '../../../ports/storage.js';
import type { SessionSummary } from '../../../types.js';
import { check, type ContractCase } from '../check.js';
import { event, ids, seed, text } from './fixtures.js';

/** Every page from `null` to the end, with `limit` per page. */
async function allPages(storage: SessionStorage, limit: number): Promise<SessionSummary[][]> {
  const pages: SessionSummary[][] = [];
  let cursor: string | null = null;
  do {
    const page = await storage.listSessions(cursor, limit);
    pages.push(page.sessions);
    cursor = page.nextCursor;
    check.ok(pages.length <= 1000, 'paging did not end');
  } while (cursor !== null);
  return pages;
}

/** Cases of the session storage contract: listing and paging. */
export const pagingCases: ContractCase<SessionStorage>[] = [
  {
    name: 'listSessions orders sessions newest update first, by instant',
    async run(storage) {
      await seed(storage, [
        ['old', 0],
        ['middle', 10],
        ['new', 20],
      ]);
      check.deepEqual(ids((await storage.listSessions(null, 10)).sessions), ['new', 'middle', 'old']);
      await storage.saveEvent('old', event.assistant(30, 'touched'));
      check.deepEqual(ids((await storage.listSessions(null, 10)).sessions), ['old', 'new', 'middle']);
      // 11:30+02:00 is 09:30Z: earlier than 10:00Z although its text sorts later.
      await storage.saveEvent('offset', {
        timestamp: '2024-01-01T11:30:00+02:00',
        payload: { type: 'user_message', content: [text('offset')] },
      });
      await storage.saveEvent('utc', {
        timestamp: '2024-01-01T10:00:00Z',
        payload: { type: 'user_message', content: [text('utc')] },
      });
      check.deepEqual(ids((await storage.listSessions(null, 10)).sessions), [
        'utc',
        'offset',
        'old',
        'new',
        'middle',
      ]);
    },
  },
  {
    name: 'listSessions pages by limit: each session exactly once, nextCursor null iff nothing follows',
    async run(storage) {
      // Three sessions share one updatedAt: the order must still be total.
      await seed(storage, [
        ['a', 1],
        ['b', 2],
        ['c', 3],
        ['d', 3],
        ['e', 3],
        ['f', 4],
        ['g', 5],
      ]);
      const everything = ids((await storage.listSessions(null, 100)).sessions);
      check.equal(everything.length, 7, 'sessions listed');
      check.deepEqual(everything.slice(0, 2), ['g', 'f'], 'newest first');
      check.deepEqual(everything.slice(5), ['b', 'a'], 'oldest last');
      check.deepEqual([...everything.slice(2, 5)].sort(), ['c', 'd', 'e'], 'ties in the middle');

      for (const limit of [1, 2, 3, 6, 7]) {
        const pages = await allPages(storage, limit);
        check.deepEqual(ids(pages.flat()), everything, `pages of ${limit}`);
        check.equal(pages.length, Math.ceil(7 / limit), `number of pages of ${limit}`);
        for (const page of pages.slice(0, -1)) check.equal(page.length, limit, `full page of ${limit}`);
      }
      const exact = await storage.listSessions(null, 7);
      check.equal(exact.nextCursor, null, 'nextCursor when the page holds the rest exactly');
      const partial = await storage.listSessions(null, 6);
      check.ok(typeof partial.nextCursor === 'string', 'nextCursor when one session follows');
      const last = await storage.listSessions(partial.nextCursor, 6);
      check.deepEqual(ids(last.sessions), ['a'], 'last page');
      check.equal(last.nextCursor, null, 'nextCursor of the last page');
    },
  },
  {
    name: 'paging stays stable while sessions are appended to between pages',
    async run(storage) {
      const initial: [string, number][] = Array.from({ length: 10 }, (_, i) => [`s${i}`, i]);
      await seed(storage, initial);
      // Newest first: s9 … s0.
      const first = await storage.listSessions(null, 3);
      check.deepEqual(ids(first.sessions), ['s9', 's8', 's7'], 'first page');

      // Between pages: a returned session is updated, a not-yet-returned one is updated (moves
      // to the front), and a new session appears.
      await storage.saveEvent('s8', event.assistant(100, 'update of a returned session'));
      await storage.saveEvent('s3', event.assistant(101, 'update of a pending session'));
      await storage.saveEvent('new', event.user(102, 'a new session'));

      const seen = [...ids(first.sessions)];
      let cursor = first.nextCursor;
      let pages = 1;
      while (cursor !== null) {
        const page = await storage.listSessions(cursor, 3);
        seen.push(...ids(page.sessions));
        cursor = page.nextCursor;
        pages += 1;
        if (pages === 2) {
          // And once more, in the middle of the pass.
          await storage.saveEvent('s9', event.assistant(103, 'another update'));
        }
        check.ok(pages < 100, 'paging did not end');
      }
      check.equal(new Set(seen).size, seen.length, `no session twice (got ${seen.join(',')})`);
      const untouched = ['s7', 's6', 's5', 's4', 's2', 's1', 's0'];
      check.deepEqual(
        seen.filter((id) => untouched.includes(id)),
        untouched,
        'every untouched session exactly once, in order',
      );
      check.deepEqual(seen.slice(0, 3), ['s9', 's8', 's7'], 'first page unchanged');
    },
  },
];
