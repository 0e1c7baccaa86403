/**
 * Events round trip: saved in order, an unknown session, an empty storage.
 * @module
 */
import type { SessionStorage } from '../../../ports/storage.js';
import { check, type ContractCase } from '../check.js';
import { event, ids } from './fixtures.js';

/** Cases of the session storage contract: events round trip. */
export const eventsCases: ContractCase<SessionStorage>[] = [
  {
    name: 'loads events in append order, not timestamp order',
    async run(storage) {
      const events = [
        event.config(0, 'model-a'),
        event.user(1, 'first'),
        event.toolCall(2, 'c1', { query: 'x', nested: { deep: [1, 2] } }),
        event.toolResult(3, 'c1', 'result'),
        event.assistant(2, 'appended later with an earlier timestamp'),
        event.system(5, 'a note'),
      ];
      for (const item of events) await storage.saveEvent('s1', item);
      check.deepEqual(await storage.loadSession('s1'), events, 'loadSession');
    },
  },
  {
    name: 'an unknown session loads as null',
    async run(storage) {
      check.equal(await storage.loadSession('missing'), null, 'loadSession(missing)');
      await storage.saveEvent('s1', event.user(0, 'hi'));
      check.equal(await storage.loadSession('missing'), null, 'loadSession(missing) with others');
      const fresh = await storage.listSessions(null, 10);
      check.deepEqual(ids(fresh.sessions), ['s1'], 'listed ids');
      check.equal(fresh.nextCursor, null, 'nextCursor');
    },
  },
  {
    name: 'empty storage lists an empty page and finds nothing',
    async run(storage) {
      check.deepEqual(await storage.listSessions(null, 5), { sessions: [], nextCursor: null });
      check.deepEqual(await storage.findSessions('anything'), []);
    },
  },
];
