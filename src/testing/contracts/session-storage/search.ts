/**
 * Search: `findSessions` over titles and message text.
 * @module
 */
import type { SessionStorage } from '../../../ports/storage.js';
import { check, type ContractCase } from '../check.js';
import { event, ids, summaryOf } from './fixtures.js';

/** Cases of the session storage contract: search. */
export const searchCases: ContractCase<SessionStorage>[] = [
  {
    name: 'findSessions matches title and message text case-insensitively, newest first',
    async run(storage) {
      await storage.saveEvent('trip', event.user(1, 'Plan the Trip to KYOTO'));
      await storage.saveEvent('capital', event.user(2, 'A question'));
      await storage.saveEvent('capital', event.assistant(3, 'The capital of France is Paris.'));
      await storage.saveEvent('weather', event.user(4, 'Forecast?'));
      await storage.saveEvent('weather', event.toolCall(5, 'c1', { city: 'Oslo' }));
      await storage.saveEvent('weather', event.toolResult(6, 'c1', 'Oslo: SUNNY and mild'));
      await storage.saveEvent('note', event.user(7, 'hello'));
      await storage.saveEvent('note', event.system(8, 'The user prefers Metric units'));

      check.deepEqual(ids(await storage.findSessions('kyoto')), ['trip'], 'title');
      check.deepEqual(ids(await storage.findSessions('trip to')), ['trip'], 'title phrase');
      check.deepEqual(ids(await storage.findSessions('FRANCE')), ['capital'], 'assistant text');
      check.deepEqual(ids(await storage.findSessions('sunny')), ['weather'], 'tool result');
      check.deepEqual(ids(await storage.findSessions('metric UNITS')), ['note'], 'system message');
      check.deepEqual(ids(await storage.findSessions('the')), ['note', 'capital', 'trip'], 'several');

      const [found] = await storage.findSessions('capital of france');
      check.deepEqual(found, await summaryOf(storage, 'capital'), 'a found session is its summary');
    },
  },
  {
    name: 'findSessions without a match, or with a blank query, finds nothing',
    async run(storage) {
      await storage.saveEvent('s1', event.user(1, 'hello world'));
      check.deepEqual(await storage.findSessions('goodbye'), [], 'no match');
      check.deepEqual(await storage.findSessions(''), [], 'empty query');
      check.deepEqual(await storage.findSessions('   '), [], 'blank query');
    },
  },
];
