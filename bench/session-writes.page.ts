/**
 * The page side of the write-path benchmark: a burst of saves (all called in one tick) into a
 * fresh session, with and without a writer epoch, and draft checkpoints one after another.
 * Each function returns its duration in ms, measured in the page with `performance.now()`.
 * @module
 */
import { IndexedDbSessionStorage } from '../src/storage/indexeddb/index.js';
import type { SessionEvent } from '../src/types.js';
import { exposeToHarness } from '../test/browser/page-runtime.js';
import { deleteDatabase } from './page-helpers.js';

/** A tool result of ~200 characters: the size of a typical streamed event. */
function eventAt(i: number): SessionEvent {
  return {
    timestamp: new Date(Date.UTC(2024, 0, 1) + i * 1000).toISOString(),
    payload: {
      type: 'tool_result',
      callId: `c${i}`,
      content: `event ${i}: ${'lorem ipsum dolor sit amet '.repeat(7)}`,
      isError: false,
    },
  };
}

/** A fresh storage on a fresh database, opened before the clock starts. */
async function freshStorage(dbName: string): Promise<IndexedDbSessionStorage> {
  await deleteDatabase(dbName);
  const storage = new IndexedDbSessionStorage({ dbName });
  await storage.loadSession('warm-up');
  return storage;
}

exposeToHarness({
  /** `count` saves called in one tick; with `fenced`, after `claimWriter` and carrying its epoch. */
  async burst(dbName: string, count: number, fenced: boolean) {
    const storage = await freshStorage(dbName);
    const options = fenced ? { writerEpoch: await storage.claimWriter('bench') } : undefined;
    const start = performance.now();
    const saves: Promise<void>[] = [];
    for (let i = 0; i < count; i += 1) saves.push(storage.saveEvent('bench', eventAt(i), options));
    await Promise.all(saves);
    const elapsed = performance.now() - start;
    const loaded = await storage.loadSession('bench');
    if (loaded?.length !== count)
      throw new Error(`stored ${loaded?.length ?? 'no'} events, expected ${count}`);
    await storage.close();
    await deleteDatabase(dbName);
    return elapsed;
  },

  /** `count` saves one after another (awaiting each); with `fenced`, carrying a claimed epoch. */
  async oneByOne(dbName: string, count: number, fenced: boolean) {
    const storage = await freshStorage(dbName);
    const options = fenced ? { writerEpoch: await storage.claimWriter('bench') } : undefined;
    const start = performance.now();
    for (let i = 0; i < count; i += 1) await storage.saveEvent('bench', eventAt(i), options);
    const elapsed = performance.now() - start;
    await storage.close();
    await deleteDatabase(dbName);
    return elapsed;
  },

  /** `count` draft checkpoints of a growing text (~2 kB at the end), awaiting each. */
  async drafts(dbName: string, count: number) {
    const storage = await freshStorage(dbName);
    await storage.saveEvent('bench', eventAt(0));
    const start = performance.now();
    for (let i = 0; i < count; i += 1) {
      const text = 'streamed text '.repeat(Math.ceil(((i + 1) * 2000) / count / 14));
      await storage.saveDraft('bench', { turnId: 't1', text, updatedAt: new Date().toISOString() });
    }
    const elapsed = performance.now() - start;
    await storage.close();
    await deleteDatabase(dbName);
    return elapsed;
  },
});
