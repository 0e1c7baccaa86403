/**
 * Summaries: title, modelId, counts and times of a listed session.
 * @module
 */
import type { SessionStorage } from '../../../ports/storage.js';
import type { ContentBlock } from '../../../types.js';
import { check, type ContractCase } from '../check.js';
import { at, event, summaryOf } from './fixtures.js';

const IMAGE: ContentBlock = { type: 'image', data: 'iVBORw0KGgo=', mediaType: 'image/png' };

/** Cases of the session storage contract: summaries. */
export const summariesCases: ContractCase<SessionStorage>[] = [
  {
    name: 'summary: title from the first user message, modelId from session_config, counts and times',
    async run(storage) {
      await storage.saveEvent('s1', event.config(10, 'gpt-test'));
      check.deepEqual(
        await summaryOf(storage, 's1'),
        {
          id: 's1',
          title: '',
          modelId: 'gpt-test',
          createdAt: at(10),
          updatedAt: at(10),
          turnCount: 0,
          eventCount: 1,
        },
        'summary before any user message',
      );
      await storage.saveEvent('s1', event.user(11, '  Plan\n the   trip ', IMAGE, 'to Kyoto\t'));
      await storage.saveEvent('s1', event.assistant(12, 'Sure.'));
      await storage.saveEvent('s1', event.toolCall(13, 'c1', {}));
      await storage.saveEvent('s1', event.toolResult(14, 'c1', 'done'));
      await storage.saveEvent('s1', event.user(15, 'A second question'));
      check.deepEqual(
        await summaryOf(storage, 's1'),
        {
          id: 's1',
          title: 'Plan the trip to Kyoto',
          modelId: 'gpt-test',
          createdAt: at(10),
          updatedAt: at(15),
          turnCount: 2,
          eventCount: 6,
        },
        'summary',
      );
    },
  },
  {
    name: 'summary: modelId is empty until session_config, and the latest session_config wins',
    async run(storage) {
      await storage.saveEvent('s1', event.user(0, 'hi'));
      check.equal((await summaryOf(storage, 's1')).modelId, '', 'modelId before config');
      await storage.saveEvent('s1', event.config(1, 'model-a'));
      await storage.saveEvent('s1', event.config(2, 'model-b'));
      check.equal((await summaryOf(storage, 's1')).modelId, 'model-b', 'modelId');
    },
  },
  {
    name: 'summary: title is cut to 80 characters without splitting one, skipping image-only messages',
    async run(storage) {
      await storage.saveEvent('s1', event.user(0, IMAGE));
      check.equal((await summaryOf(storage, 's1')).title, '', 'title of an image-only message');
      const long = `${'a'.repeat(79)}😀${'b'.repeat(30)}`;
      await storage.saveEvent('s1', event.user(1, long));
      await storage.saveEvent('s1', event.user(2, 'not the title'));
      const summary = await summaryOf(storage, 's1');
      check.equal(summary.title, `${'a'.repeat(79)}😀`, 'title');
      check.equal(summary.turnCount, 3, 'turnCount');
    },
  },
  {
    name: 'summary: times are UTC, createdAt is the first event, updatedAt never moves backwards',
    async run(storage) {
      await storage.saveEvent('s1', {
        timestamp: '2024-03-01T10:00:00+02:00',
        payload: { type: 'system_message', content: 'x' },
      });
      await storage.saveEvent('s1', {
        timestamp: '2024-03-01T09:30:00Z',
        payload: { type: 'system_message', content: 'y' },
      });
      await storage.saveEvent('s1', {
        timestamp: '2024-03-01T09:00:00Z',
        payload: { type: 'system_message', content: 'an older timestamp' },
      });
      const summary = await summaryOf(storage, 's1');
      check.equal(summary.createdAt, '2024-03-01T08:00:00.000Z', 'createdAt');
      check.equal(summary.updatedAt, '2024-03-01T09:30:00.000Z', 'updatedAt');
    },
  },
  {
    name: 'summary: owner from the first session_owner metadata, absent until one',
    async run(storage) {
      await storage.saveEvent('s1', event.user(0, 'hi'));
      check.equal('owner' in (await summaryOf(storage, 's1')), false, 'owner before any record');
      await storage.saveEvent('s1', event.owner(1, 'user-1'));
      await storage.saveEvent('s1', event.owner(2, 'user-2'));
      check.equal((await summaryOf(storage, 's1')).owner, 'user-1', 'owner (the first record wins)');
      await storage.saveEvent('s2', event.owner(3, 'user-2'));
      check.equal((await summaryOf(storage, 's2')).owner, 'user-2', 'owner of s2');
    },
  },
  {
    name: 'loadSummary (when the storage has it): what listSessions lists, owner included; null when unknown',
    async run(storage) {
      if (typeof storage.loadSummary !== 'function') return;
      check.equal(await storage.loadSummary('nope'), null, 'unknown session');
      await storage.saveEvent('s1', event.owner(0, 'user-1'));
      await storage.saveEvent('s1', event.config(1, 'gpt-test'));
      await storage.saveEvent('s1', event.user(2, 'Plan the trip'));
      await storage.saveEvent('s2', event.user(3, 'other'));
      check.deepEqual(await storage.loadSummary('s1'), await summaryOf(storage, 's1'), 'summary of s1');
      check.deepEqual(
        await storage.loadSummary('s1'),
        {
          id: 's1',
          title: 'Plan the trip',
          modelId: 'gpt-test',
          createdAt: at(0),
          updatedAt: at(2),
          turnCount: 1,
          eventCount: 3,
          owner: 'user-1',
        },
        'loaded summary',
      );
      await storage.deleteSession('s1');
      check.equal(await storage.loadSummary('s1'), null, 'deleted session');
    },
  },
];
