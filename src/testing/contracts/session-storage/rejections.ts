/**
 * What a storage refuses: an invalid event, a bad limit, a foreign cursor.
 * @module
 */
import type { SessionStorage } from '../../../ports/storage.js';
import type { SessionEvent } from '../../../types.js';
import { check, type ContractCase } from '../check.js';
import { at, event, seed, summaryOf } from './fixtures.js';

/** Cases of the session storage contract: what a storage refuses. */
export const rejectionsCases: ContractCase<SessionStorage>[] = [
  {
    name: 'an invalid event is rejected with INVALID_INPUT and nothing is stored',
    async run(storage) {
      const invalid: unknown[] = [
        null,
        { payload: { type: 'system_message', content: 'no timestamp' } },
        { timestamp: 'yesterday', payload: { type: 'system_message', content: 'x' } },
        { timestamp: at(0), payload: { type: 'shout', content: 'x' } },
        { timestamp: at(0), payload: { type: 'system_message', content: 42 } },
        { timestamp: at(0), payload: { type: 'user_message', content: 'not blocks' } },
        { timestamp: at(0), payload: { type: 'system_message', content: 'x', extra: true } },
        { timestamp: at(0), payload: { type: 'system_message', content: 'x' }, extra: 1 },
      ];
      for (const [index, value] of invalid.entries()) {
        await check.rejects(
          () => storage.saveEvent('bad', value as SessionEvent),
          'INVALID_INPUT',
          `invalid event #${index}`,
        );
      }
      check.equal(await storage.loadSession('bad'), null, 'events of a session with only invalid events');
      check.deepEqual(await storage.listSessions(null, 10), { sessions: [], nextCursor: null });

      await storage.saveEvent('good', event.user(1, 'valid'));
      await check.rejects(
        () => storage.saveEvent('good', invalid[2] as SessionEvent),
        'INVALID_INPUT',
        'invalid event into an existing session',
      );
      check.deepEqual(await storage.loadSession('good'), [event.user(1, 'valid')], 'existing session');
      check.equal((await summaryOf(storage, 'good')).eventCount, 1, 'eventCount');
    },
  },
  {
    name: 'listSessions rejects a limit that is not a positive integer',
    async run(storage) {
      await seed(storage, [['s1', 1]]);
      for (const limit of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, '3']) {
        await check.rejects(
          () => storage.listSessions(null, limit as number),
          'INVALID_INPUT',
          `limit ${String(limit)}`,
        );
      }
    },
  },
  {
    name: 'listSessions rejects a cursor it did not make',
    async run(storage) {
      await seed(storage, [
        ['s1', 1],
        ['s2', 2],
      ]);
      // base64url of '{"x":1}', of 'not json', and a JSON number.
      for (const cursor of ['', 'not a cursor!', 'eyJ4IjoxfQ', 'bm90IGpzb24', 'NDI', '%%%']) {
        await check.rejects(() => storage.listSessions(cursor, 1), 'INVALID_INPUT', `cursor '${cursor}'`);
      }
    },
  },
];
