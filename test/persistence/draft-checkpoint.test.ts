/**
 * `DraftCheckpoint` on a manual clock: at most one save per interval, one save in flight at a
 * time (only the newest text waits), a clear only when something was saved, and a storage that
 * fails or hangs reported once — then drafts stop for the session.
 */
import { describe, expect, it } from 'vitest';
import type { AgentError } from '../../src/errors.js';
import { DraftCheckpoint } from '../../src/persistence/draft-checkpoint.js';
import type { SessionDraft } from '../../src/ports/storage.js';
import { deferred, promiseJobsRun } from '../support/waits.js';
import { ManualClock } from '../runtime/manual-clock.js';

function setup(saveDraft: (id: string, draft: SessionDraft | null) => Promise<void>, timeoutMs = 500) {
  const clock = new ManualClock();
  const errors: AgentError[] = [];
  const drafts = new DraftCheckpoint(
    's1',
    { saveDraft },
    {
      clock,
      timeoutMs,
      onError: (error) => errors.push(error),
    },
  );
  return { clock, errors, drafts };
}

describe('DraftCheckpoint', () => {
  it('saves at most once per second, and clears only what it saved', async () => {
    const saved: (string | null)[] = [];
    const { clock, drafts } = setup(async (_id, draft) => void saved.push(draft?.text ?? null));
    await drafts.clear(); // nothing saved yet: no write
    drafts.note('t1', 'a');
    drafts.note('t1', 'ab');
    await drafts.settled(); // (time moves only between saves, as it does while a model streams)
    clock.advance(999);
    drafts.note('t1', 'abc');
    clock.advance(1);
    drafts.note('t1', 'abcd');
    await drafts.settled();
    await drafts.clear();
    expect(saved).toEqual(['a', 'abcd', null]);
    expect(drafts.writes).toBe(3);
  });

  it('keeps one save in flight: only the newest text waits for it', async () => {
    const gate = deferred();
    const saved: (string | null)[] = [];
    const { clock, drafts } = setup(async (_id, draft) => {
      saved.push(draft?.text ?? null);
      if (saved.length === 1) await gate.promise;
    }, 60_000);
    drafts.note('t1', 'one');
    for (const text of ['two', 'three', 'four']) {
      clock.advance(1_000);
      drafts.note('t1', text);
    }
    gate.resolve();
    await drafts.settled();
    expect(saved).toEqual(['one', 'four']);
  });

  it('a failing storage is reported once, and drafts stop', async () => {
    const { clock, drafts, errors } = setup(async () => {
      throw new Error('quota exceeded');
    });
    drafts.note('t1', 'a');
    await drafts.settled();
    clock.advance(1_000);
    drafts.note('t1', 'ab');
    await drafts.settled();
    expect(errors.map((e) => e.code)).toEqual(['STORAGE_ERROR']);
    expect(errors[0]!.message).toContain('quota exceeded');
    expect(drafts.enabled).toBe(false);
    expect(drafts.writes).toBe(1);
  });

  it('a save that never settles is reported after timeoutMs; the clear does not wait for it', async () => {
    const { clock, drafts, errors } = setup(() => new Promise(() => {}));
    drafts.note('t1', 'a');
    await promiseJobsRun();
    clock.advance(500);
    await drafts.settled();
    expect(errors[0]!.message).toContain('did not settle within 500ms');
    await drafts.clear(); // stopped: returns at once
    expect(drafts.writes).toBe(1);
  });
});
