/**
 * The page side of the IndexedDB benchmark: runs one scenario at a time against Chromium's
 * IndexedDB and returns how long it took, measured in the page with `performance.now()`.
 * @module
 */
import { IndexedDbSessionStorage } from '../src/storage/indexeddb/index.js';
import type { SessionEvent } from '../src/types.js';
import { exposeToHarness } from '../test/browser/page-runtime.js';
import { deleteDatabase } from './page-helpers.js';

const SESSION = 'bench';

/** A realistic mix: a user message, a tool call, its result, an assistant reply; ~200 characters of text each. */
function eventAt(i: number): SessionEvent {
  const timestamp = new Date(Date.UTC(2024, 0, 1) + i * 1000).toISOString();
  const text = `event ${i}: ${'lorem ipsum dolor sit amet '.repeat(7)}`;
  switch (i % 4) {
    case 0:
      return { timestamp, payload: { type: 'user_message', content: [{ type: 'text', text }] } };
    case 1:
      return {
        timestamp,
        payload: {
          type: 'tool_call',
          callId: `c${i}`,
          toolName: 'search',
          arguments: { query: text.slice(0, 40), limit: 5 },
        },
      };
    case 2:
      return {
        timestamp,
        payload: { type: 'tool_result', callId: `c${i - 1}`, content: text, isError: false },
      };
    default:
      return {
        timestamp,
        payload: {
          type: 'assistant_message',
          content: [{ type: 'text', text }],
          status: 'complete',
        },
      };
  }
}

/** Runs `body` on a fresh storage and returns its duration in ms (opening the database excluded). */
async function timed(
  dbName: string,
  body: (storage: IndexedDbSessionStorage) => Promise<void>,
): Promise<number> {
  const storage = new IndexedDbSessionStorage({ dbName });
  await storage.loadSession('warm-up'); // opens (and creates) the database
  const start = performance.now();
  await body(storage);
  const elapsed = performance.now() - start;
  await storage.close();
  return elapsed;
}

exposeToHarness({
  /** Saves `count` events one by one, awaiting each save. */
  async saveOneByOne(dbName: string, count: number) {
    await deleteDatabase(dbName);
    return timed(dbName, async (storage) => {
      for (let i = 0; i < count; i += 1) await storage.saveEvent(SESSION, eventAt(i));
    });
  },

  /** Saves `count` events in bursts of `burst` calls made together (like a batch of tool results). */
  async saveInBursts(dbName: string, count: number, burst: number) {
    await deleteDatabase(dbName);
    return timed(dbName, async (storage) => {
      for (let i = 0; i < count; i += burst) {
        const saves: Promise<void>[] = [];
        for (let j = i; j < Math.min(count, i + burst); j += 1)
          saves.push(storage.saveEvent(SESSION, eventAt(j)));
        await Promise.all(saves);
      }
    });
  },

  /** Loads the session saved by a previous scenario and checks it is whole and in order. */
  async loadAll(dbName: string, count: number) {
    let loaded: SessionEvent[] | null = null;
    const elapsed = await timed(dbName, async (storage) => {
      loaded = await storage.loadSession(SESSION);
    });
    const events = loaded as SessionEvent[] | null;
    if (events?.length !== count)
      throw new Error(`loaded ${events?.length ?? 'no'} events, expected ${count}`);
    events.forEach((event, i) => {
      if (event.timestamp !== eventAt(i).timestamp) throw new Error(`event ${i} is out of order`);
    });
    return elapsed;
  },

  async drop(dbName: string) {
    await deleteDatabase(dbName);
  },
});
