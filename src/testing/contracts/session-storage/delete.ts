/**
 * Deleting a session.
 * @module
 */
import type { SessionStorage } from '../../../ports/storage.js';
import { check, type ContractCase } from '../check.js';
import { at, event, ids, summaryOf } from './fixtures.js';

/** Cases of the session storage contract: deleting a session. */
export const deleteCases: ContractCase<SessionStorage>[] = [
  {
    name: 'deleteSession removes events and summary, leaves others, and is idempotent',
    async run(storage) {
      await storage.saveEvent('gone', event.user(1, 'delete me'));
      await storage.saveEvent('gone', event.assistant(2, 'ok'));
      await storage.saveEvent('kept', event.user(3, 'keep me'));
      await storage.deleteSession('gone');
      check.equal(await storage.loadSession('gone'), null, 'events of the deleted session');
      check.deepEqual(ids((await storage.listSessions(null, 10)).sessions), ['kept'], 'listed');
      check.deepEqual(await storage.findSessions('delete me'), [], 'found');
      check.deepEqual(await storage.loadSession('kept'), [event.user(3, 'keep me')], 'other session');

      await storage.deleteSession('gone');
      await storage.deleteSession('never-existed');

      // A new session under the same id starts from scratch.
      await storage.saveEvent('gone', event.user(9, 'again'));
      const summary = await summaryOf(storage, 'gone');
      check.equal(summary.eventCount, 1, 'eventCount after re-creation');
      check.equal(summary.title, 'again', 'title after re-creation');
      check.equal(summary.createdAt, at(9), 'createdAt after re-creation');
    },
  },
];
