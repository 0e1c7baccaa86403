/**
 * Drafts (optional: run when the storage has `saveDraft` and `loadDraft`).
 * @module
 */
import type { SessionDraft, SessionStorage } from '../../../ports/storage.js';
import { check, type ContractCase } from '../check.js';
import { at, event, summaryOf } from './fixtures.js';

type WithDrafts = SessionStorage & Required<Pick<SessionStorage, 'saveDraft' | 'loadDraft'>>;

/** The storage, when it keeps drafts; `null` when it has neither member. Half of the pair fails. */
function withDrafts(storage: SessionStorage): WithDrafts | null {
  const save = typeof storage.saveDraft === 'function';
  const load = typeof storage.loadDraft === 'function';
  check.ok(save === load, 'saveDraft and loadDraft come together');
  return save ? (storage as WithDrafts) : null;
}

const draft = (turnId: string, value: string, seconds: number): SessionDraft => ({
  turnId,
  text: value,
  updatedAt: at(seconds),
});

/** Cases of the session storage contract: drafts (optional. */
export const draftsCases: ContractCase<SessionStorage>[] = [
  {
    name: 'drafts: none at first, saved, overwritten, cleared with null, per session',
    async run(plain) {
      const storage = withDrafts(plain);
      if (!storage) return;
      check.equal(await storage.loadDraft('s1'), null, 'no draft of an unknown session');
      await storage.saveEvent('s1', event.user(0, 'hi'));
      await storage.saveEvent('s2', event.user(0, 'hello'));
      check.equal(await storage.loadDraft('s1'), null, 'no draft yet');
      await storage.saveDraft('s1', draft('t1', 'Hel', 1));
      await storage.saveDraft('s2', draft('t9', 'other session', 1));
      check.deepEqual(await storage.loadDraft('s1'), draft('t1', 'Hel', 1), 'saved');
      await storage.saveDraft('s1', draft('t1', 'Hello, wor', 2));
      check.deepEqual(await storage.loadDraft('s1'), draft('t1', 'Hello, wor', 2), 'overwritten');
      await storage.saveDraft('s1', null);
      check.equal(await storage.loadDraft('s1'), null, 'cleared');
      await storage.saveDraft('s1', null);
      check.deepEqual(await storage.loadDraft('s2'), draft('t9', 'other session', 1), 'the other session');
      check.deepEqual(await storage.loadSession('s1'), [event.user(0, 'hi')], 'events untouched by drafts');
      check.equal((await summaryOf(storage, 's1')).eventCount, 1, 'eventCount untouched by drafts');
    },
  },
  {
    name: 'deleteSession removes the draft, and leaves the drafts of other sessions',
    async run(plain) {
      const storage = withDrafts(plain);
      if (!storage) return;
      await storage.saveEvent('gone', event.user(0, 'bye'));
      await storage.saveDraft('gone', draft('t1', 'half a sentence', 1));
      await storage.saveDraft('kept', draft('t2', 'kept', 1));
      await storage.deleteSession('gone');
      check.equal(await storage.loadDraft('gone'), null, 'draft of the deleted session');
      check.deepEqual(await storage.loadDraft('kept'), draft('t2', 'kept', 1), 'other draft');
    },
  },
  {
    name: 'drafts are stored as copies and an invalid draft is rejected with INVALID_INPUT',
    async run(plain) {
      const storage = withDrafts(plain);
      if (!storage) return;
      const saved = draft('t1', 'original', 1);
      await storage.saveDraft('s1', saved);
      saved.text = 'changed';
      const loaded = await storage.loadDraft('s1');
      check.deepEqual(loaded, draft('t1', 'original', 1), 'after mutating the saved draft');
      loaded!.text = 'changed';
      check.deepEqual(
        await storage.loadDraft('s1'),
        draft('t1', 'original', 1),
        'after mutating a loaded one',
      );
      const invalid: unknown[] = [
        { turnId: 't1', text: 'no time' },
        { turnId: 't1', text: 42, updatedAt: at(1) },
        { turnId: 't1', text: 'x', updatedAt: 'yesterday' },
        'text',
      ];
      for (const [index, value] of invalid.entries()) {
        await check.rejects(
          () => storage.saveDraft('s1', value as SessionDraft),
          'INVALID_INPUT',
          `invalid draft #${index}`,
        );
      }
      check.deepEqual(await storage.loadDraft('s1'), draft('t1', 'original', 1), 'after the invalid drafts');
    },
  },
];
