/**
 * IndexedDB-specific cases of the IndexedDB storages (beyond the shared port contracts):
 * schema and migration, batching, failures, corrupt records, other tabs. Framework-agnostic,
 * like the contract suites, so the same cases run under vitest on `fake-indexeddb` and inside a
 * real Chromium page. Each case gets a database nobody else uses.
 * @module
 */
import { wrap, type IDBPDatabase } from 'idb';
import type { CorruptRecordInfo } from '../../src/storage/indexeddb/index.js';
import {
  DB_VERSION,
  IndexedDbMemoryStorage,
  IndexedDbSessionStorage,
} from '../../src/storage/indexeddb/index.js';
import { MIGRATIONS, type AgentDB, type UpgradeTransaction } from '../../src/storage/indexeddb/schema.js';
import type { Memory, SessionEvent, SessionSummary } from '../../src/types.js';
import { check } from '../../src/testing/contracts/check.js';
import { deferred } from '../support/waits.js';

/** Where a case keeps its data: a factory and a database name no other case uses. */
export interface IdbEnv {
  indexedDB: IDBFactory;
  dbName: string;
}

/** One IndexedDB-specific case; `run` rejects when the storage misbehaves. */
export interface IdbCase {
  name: string;
  run(env: IdbEnv): Promise<void>;
}

const BASE_TIME = Date.UTC(2024, 0, 1, 9, 0, 0);
const at = (seconds: number) => new Date(BASE_TIME + seconds * 1000).toISOString();

/** A user message at `seconds`. */
export const userEvent = (seconds: number, text: string): SessionEvent => ({
  timestamp: at(seconds),
  payload: { type: 'user_message', content: [{ type: 'text', text }] },
});

/** A tool result at `seconds`. */
export const toolResultEvent = (seconds: number, content: string): SessionEvent => ({
  timestamp: at(seconds),
  payload: { type: 'tool_result', callId: `call-${seconds}`, content, isError: false },
});

const memory = (id: string, content: string, seconds: number): Memory => ({
  id,
  namespace: 'ns',
  content,
  createdAt: at(0),
  updatedAt: at(seconds),
});

/** Opens the case's database directly, as another tab (or an older release) would. */
function openRaw(
  env: IdbEnv,
  version?: number,
  upgrade?: (db: IDBPDatabase<AgentDB>, oldVersion: number, tx: UpgradeTransaction) => void,
): Promise<IDBPDatabase<AgentDB>> {
  const request = env.indexedDB.open(env.dbName, version);
  if (upgrade) {
    request.onupgradeneeded = (event) =>
      upgrade(
        wrap(request.result) as IDBPDatabase<AgentDB>,
        event.oldVersion,
        wrap(request.transaction!) as unknown as UpgradeTransaction,
      );
  }
  return wrap(request) as Promise<IDBPDatabase<AgentDB>>;
}

/** Rejects with `message` if `promise` has not settled after `ms` (a guard against hangs). */
function withinTime<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Calls `patch`'s replacement instead of `proto[method]` while `body` runs. */
async function patched<T extends object, K extends keyof T>(
  proto: T,
  method: K,
  replacement: (original: T[K]) => T[K],
  body: () => Promise<void>,
): Promise<void> {
  const original = proto[method];
  proto[method] = replacement(original);
  try {
    await body();
  } finally {
    proto[method] = original;
  }
}

/** Records every corrupt record reported. */
function corruptRecords(): {
  reports: CorruptRecordInfo[];
  onCorruptRecord: (info: CorruptRecordInfo) => void;
} {
  const reports: CorruptRecordInfo[] = [];
  return { reports, onCorruptRecord: (info) => void reports.push(info) };
}

function sessions(
  env: IdbEnv,
  extra: { onCorruptRecord?: (info: CorruptRecordInfo) => void; blockedTimeoutMs?: number } = {},
) {
  return new IndexedDbSessionStorage({ indexedDB: env.indexedDB, dbName: env.dbName, ...extra });
}

/** The session, events and memory an older database held before an upgrade (`label`: its version). */
const legacy = (label: string) => ({
  summary: {
    id: 'old',
    title: label,
    modelId: 'm',
    createdAt: at(1),
    updatedAt: at(2),
    turnCount: 1,
    eventCount: 2,
  } satisfies SessionSummary,
  events: [userEvent(1, label), toolResultEvent(2, 'result')],
  memory: memory('m1', 'kept across the upgrade', 3),
});

/** Writes {@link legacy} data into an older database, as its release stored it. */
async function seedLegacy(db: Awaited<ReturnType<typeof openRaw>>, data: ReturnType<typeof legacy>) {
  await db.put('sessions', data.summary);
  for (const [seq, event] of data.events.entries()) await db.put('events', { sessionId: 'old', seq, event });
  await db.put('memories', data.memory);
  db.close();
}

/** The upgraded database still lists, loads and finds the {@link legacy} data. */
async function checkLegacyKept(
  storage: IndexedDbSessionStorage,
  memories: IndexedDbMemoryStorage,
  data: ReturnType<typeof legacy>,
) {
  check.deepEqual(
    await storage.listSessions(null, 10),
    { sessions: [data.summary], nextCursor: null },
    'listed',
  );
  check.deepEqual(await storage.loadSession('old'), data.events, 'events');
  check.deepEqual(await memories.search('ns', 'upgrade', 5), [data.memory], 'memories');
}

async function summaryOf(storage: IndexedDbSessionStorage, id: string): Promise<SessionSummary> {
  const summary = (await storage.listSessions(null, 100)).sessions.find((s) => s.id === id);
  check.ok(summary, `session '${id}' is listed`);
  return summary;
}

/** The IndexedDB-specific cases. */
export const indexedDbCases: IdbCase[] = [
  {
    name: 'opens the database lazily, on first use, at the current schema version',
    async run(env) {
      const storage = sessions(env);
      const before = await env.indexedDB.databases();
      check.ok(!before.some((db) => db.name === env.dbName), 'no database before the first use');
      await storage.saveEvent('s1', userEvent(1, 'hi'));
      const after = await env.indexedDB.databases();
      check.deepEqual(
        after.filter((db) => db.name === env.dbName),
        [{ name: env.dbName, version: DB_VERSION }],
        'database after the first use',
      );
      const raw = await openRaw(env);
      check.deepEqual(
        [...raw.objectStoreNames].sort(),
        ['drafts', 'events', 'memories', 'sessions', 'writers'],
        'stores',
      );
      const tx = raw.transaction(['sessions', 'events', 'memories']);
      check.deepEqual([...tx.objectStore('sessions').indexNames], ['byUpdate'], 'session indexes');
      check.deepEqual([...tx.objectStore('memories').indexNames], ['byNamespaceUpdate'], 'memory indexes');
      check.deepEqual(tx.objectStore('events').keyPath, ['sessionId', 'seq'], 'event key path');
      raw.close();
      await storage.close();
    },
  },
  {
    name: 'upgrades a version 1 database to the current version and keeps its sessions, events and memories',
    async run(env) {
      check.equal(DB_VERSION, 3, 'current schema version');
      const data = legacy('from v1');
      const v1 = await openRaw(env, 1, (db) => MIGRATIONS[0]!(db, undefined as never));
      check.deepEqual([...v1.transaction('memories').store.indexNames], ['namespace'], 'v1 memory index');
      await seedLegacy(v1, data);

      const storage = sessions(env);
      const memories = new IndexedDbMemoryStorage({ indexedDB: env.indexedDB, dbName: env.dbName });
      await checkLegacyKept(storage, memories, data);
      await storage.saveEvent('old', userEvent(3, 'after the upgrade'));
      check.equal((await summaryOf(storage, 'old')).eventCount, 3, 'eventCount continues');

      const v2 = await openRaw(env);
      check.equal(v2.version, DB_VERSION, 'version after the upgrade');
      const tx = v2.transaction(['sessions', 'memories']);
      check.deepEqual([...tx.objectStore('sessions').indexNames], ['byUpdate'], 'v2 session index');
      check.deepEqual([...tx.objectStore('memories').indexNames], ['byNamespaceUpdate'], 'v2 memory index');
      v2.close();
      await storage.close();
      await memories.close();
    },
  },
  {
    name: 'upgrades a version 2 database to version 3: its sessions stay, and writer fencing and drafts work on them',
    async run(env) {
      const data = legacy('from v2');
      const v2 = await openRaw(env, 2, (db, oldVersion, tx) => {
        // The schema steps of the previous release, as it ran them.
        for (let version = oldVersion; version < 2; version++) MIGRATIONS[version]!(db, tx);
      });
      check.deepEqual([...v2.objectStoreNames].sort(), ['events', 'memories', 'sessions'], 'v2 stores');
      await seedLegacy(v2, data);

      const storage = sessions(env);
      const memories = new IndexedDbMemoryStorage({ indexedDB: env.indexedDB, dbName: env.dbName });
      await checkLegacyKept(storage, memories, data);
      check.equal(await storage.loadDraft('old'), null, 'no draft yet');
      const draft = { turnId: 't1', text: 'streamed so far', updatedAt: at(3) };
      await storage.saveDraft('old', draft);
      check.deepEqual(await storage.loadDraft('old'), draft, 'draft');

      const first = await storage.claimWriter('old');
      const second = await storage.claimWriter('old');
      check.ok(second > first, `epochs grow (${first}, then ${second})`);
      await check.rejects(
        storage.saveEvent('old', userEvent(3, 'stale'), { writerEpoch: first }),
        'STORAGE_ERROR',
        'stale write',
      );
      await storage.saveEvent('old', userEvent(4, 'current'), { writerEpoch: second });
      check.deepEqual(
        await storage.loadSession('old'),
        [userEvent(1, 'from v2'), toolResultEvent(2, 'result'), userEvent(4, 'current')],
        'events after the upgrade',
      );

      const v3 = await openRaw(env);
      check.equal(v3.version, 3, 'version after the upgrade');
      check.deepEqual(
        [...v3.objectStoreNames].sort(),
        ['drafts', 'events', 'memories', 'sessions', 'writers'],
        'v3 stores',
      );
      v3.close();
      await storage.close();
      await memories.close();
    },
  },
  {
    name: 'a burst of saves goes into few transactions, in call order',
    async run(env) {
      const storage = sessions(env);
      await storage.saveEvent('warm-up', userEvent(0, 'opens the database'));
      let transactions = 0;
      const firstTransaction = deferred();
      await patched(
        IDBDatabase.prototype,
        'transaction',
        (original) =>
          function (this: IDBDatabase, ...args: Parameters<IDBDatabase['transaction']>) {
            transactions += 1;
            firstTransaction.resolve();
            return original.apply(this, args);
          },
        async () => {
          const events = Array.from({ length: 300 }, (_, i) => toolResultEvent(i, `result ${i}`));
          // One call first; the rest arrive while its batch is being written.
          const first = storage.saveEvent('burst', events[0]!);
          await firstTransaction.promise;
          const rest = events.slice(1).map((event) => storage.saveEvent('burst', event));
          await Promise.all([first, ...rest]);
          check.ok(transactions <= 2, `300 saves used ${transactions} transactions, expected at most 2`);
          check.deepEqual(await storage.loadSession('burst'), events, 'events in call order');
        },
      );
      check.equal((await summaryOf(storage, 'burst')).eventCount, 300, 'eventCount');
      await storage.close();
    },
  },
  {
    name: 'a save resolves only once its transaction has committed',
    async run(env) {
      const storage = sessions(env);
      await storage.saveEvent('s1', userEvent(1, 'durable'));
      // Another connection (another tab) sees it at once.
      const raw = await openRaw(env);
      const stored = await raw.get('events', ['s1', 0]);
      raw.close();
      check.deepEqual(stored, { sessionId: 's1', seq: 0, event: userEvent(1, 'durable') }, 'stored record');
      await storage.close();
    },
  },
  {
    name: 'reads and deletes are ordered after the saves called before them',
    async run(env) {
      const storage = sessions(env);
      void storage.saveEvent('s1', userEvent(1, 'not awaited'));
      check.deepEqual(await storage.loadSession('s1'), [userEvent(1, 'not awaited')], 'read sees the save');
      const saves = [storage.saveEvent('s1', userEvent(2, 'before delete'))];
      const deleted = storage.deleteSession('s1');
      saves.push(storage.saveEvent('s1', userEvent(3, 'after delete')));
      await Promise.all([...saves, deleted]);
      check.deepEqual(await storage.loadSession('s1'), [userEvent(3, 'after delete')], 'after delete');
      check.equal((await summaryOf(storage, 's1')).eventCount, 1, 'eventCount after delete');
      await storage.close();
    },
  },
  {
    name: 'a failed write rejects its whole batch with STORAGE_ERROR, loses nothing, and the next batch works',
    async run(env) {
      const storage = sessions(env);
      const kept = [userEvent(1, 'one'), toolResultEvent(2, 'two')];
      for (const event of kept) await storage.saveEvent('s1', event);
      let adds = 0;
      await patched(
        IDBObjectStore.prototype,
        'add',
        (original) =>
          function (this: IDBObjectStore, ...args: Parameters<IDBObjectStore['add']>) {
            // The disk fills up at the second write of the next batch.
            adds += 1;
            if (adds === 2) throw new DOMException('The quota has been exceeded.', 'QuotaExceededError');
            return original.apply(this, args);
          },
        async () => {
          const batch = [3, 4, 5].map((s) => storage.saveEvent('s1', toolResultEvent(s, `lost ${s}`)));
          const errors = await Promise.all(
            batch.map((save) => check.rejects(save, 'STORAGE_ERROR', 'save in the failed batch')),
          );
          for (const error of errors) {
            check.ok(/quota/i.test(error.message), `message names the quota: ${error.message}`);
            check.equal((error.cause as DOMException).name, 'QuotaExceededError', 'cause');
          }
        },
      );
      check.deepEqual(await storage.loadSession('s1'), kept, 'events stored before the failure');
      check.equal((await summaryOf(storage, 's1')).eventCount, 2, 'eventCount unchanged');
      await storage.saveEvent('s1', userEvent(6, 'next batch'));
      check.deepEqual(
        await storage.loadSession('s1'),
        [...kept, userEvent(6, 'next batch')],
        'after the next batch',
      );
      check.equal((await summaryOf(storage, 's1')).eventCount, 3, 'eventCount after the next batch');
      await storage.close();
    },
  },
  {
    name: 'a corrupt event is reported with its key and the rest of the session still loads',
    async run(env) {
      const { reports, onCorruptRecord } = corruptRecords();
      const storage = sessions(env, { onCorruptRecord });
      const good = [userEvent(1, 'first'), toolResultEvent(2, 'second'), userEvent(3, 'third')];
      for (const event of good) await storage.saveEvent('s1', event);
      const raw = await openRaw(env);
      await raw.put('events', {
        sessionId: 's1',
        seq: 1,
        event: { timestamp: 'garbage', payload: { type: 'nope' } },
      });
      raw.close();

      check.deepEqual(await storage.loadSession('s1'), [good[0], good[2]], 'valid events');
      check.equal(reports.length, 1, 'reports');
      check.equal(reports[0]!.store, 'events', 'store');
      check.deepEqual(reports[0]!.key, ['s1', 1], 'key');
      check.ok(reports[0]!.issues.length > 0, 'issues');
      // A new event goes after the corrupt one, which is left untouched.
      await storage.saveEvent('s1', userEvent(4, 'fourth'));
      check.deepEqual(
        await storage.loadSession('s1'),
        [good[0], good[2], userEvent(4, 'fourth')],
        'after a save',
      );
      await storage.close();
    },
  },
  {
    name: 'a corrupt summary is reported, skipped by listSessions, and rebuilt from the events by the next save',
    async run(env) {
      const { reports, onCorruptRecord } = corruptRecords();
      const storage = sessions(env, { onCorruptRecord });
      await storage.saveEvent('broken', userEvent(1, 'Broken title'));
      await storage.saveEvent('broken', toolResultEvent(2, 'x'));
      await storage.saveEvent('fine', userEvent(3, 'Fine'));
      const raw = await openRaw(env);
      await raw.put('sessions', { id: 'broken', updatedAt: at(2), title: 42 });
      raw.close();

      check.deepEqual(
        (await storage.listSessions(null, 10)).sessions.map((s) => s.id),
        ['fine'],
        'listed',
      );
      check.deepEqual(
        reports.map((r) => [r.store, r.key]),
        [['sessions', 'broken']],
        'reported',
      );
      check.equal((await storage.loadSession('broken'))?.length, 2, 'its events still load');

      await storage.saveEvent('broken', toolResultEvent(4, 'y'));
      const rebuilt = await summaryOf(storage, 'broken');
      check.deepEqual(
        rebuilt,
        {
          id: 'broken',
          title: 'Broken title',
          modelId: '',
          createdAt: at(1),
          updatedAt: at(4),
          turnCount: 1,
          eventCount: 3,
        },
        'rebuilt summary',
      );
      await storage.close();
    },
  },
  {
    name: 'a corrupt memory is reported with its key and the others are still found',
    async run(env) {
      const { reports, onCorruptRecord } = corruptRecords();
      const memories = new IndexedDbMemoryStorage({
        indexedDB: env.indexedDB,
        dbName: env.dbName,
        onCorruptRecord,
      });
      await memories.save(memory('good', 'likes tea', 1));
      const raw = await openRaw(env);
      await raw.put('memories', {
        id: 'bad',
        namespace: 'ns',
        updatedAt: at(2),
        content: ['not', 'text'],
      });
      raw.close();
      check.deepEqual(await memories.search('ns', '', 10), [memory('good', 'likes tea', 1)], 'found');
      check.deepEqual(
        reports.map((r) => [r.store, r.key]),
        [['memories', 'bad']],
        'reported',
      );
      await memories.close();
    },
  },
  {
    name: 'by default a corrupt record is reported with console.warn',
    async run(env) {
      const storage = sessions(env);
      await storage.saveEvent('s1', userEvent(1, 'ok'));
      const raw = await openRaw(env);
      await raw.put('events', { sessionId: 's1', seq: 1, event: null });
      raw.close();
      const warnings: unknown[][] = [];
      await patched(
        console,
        'warn',
        () =>
          (...args: unknown[]) =>
            void warnings.push(args),
        async () => {
          check.deepEqual(await storage.loadSession('s1'), [userEvent(1, 'ok')], 'valid events');
        },
      );
      check.equal(warnings.length, 1, 'warnings');
      const text = String(warnings[0]![0]);
      check.ok(
        text.includes("'events'") && text.includes('["s1",1]'),
        `warning names store and key: ${text}`,
      );
      await storage.close();
    },
  },
  {
    name: 'another tab deleting the database is not blocked, and the next use starts afresh',
    async run(env) {
      const storage = sessions(env);
      await storage.saveEvent('s1', userEvent(1, 'soon gone'));
      const deleting = new Promise<void>((resolve, reject) => {
        const request = env.indexedDB.deleteDatabase(env.dbName);
        request.onsuccess = () => resolve();
        request.onerror = () => reject(request.error);
      });
      await withinTime(
        deleting,
        5000,
        'deleting the database hung: the storage did not close on versionchange',
      );
      check.equal(await storage.loadSession('s1'), null, 'after the delete');
      await storage.saveEvent('s2', userEvent(2, 'reopened'));
      check.deepEqual(await storage.loadSession('s2'), [userEvent(2, 'reopened')], 'after reopening');
      await storage.close();
    },
  },
  {
    name: 'a newer version opened in another tab is not blocked; this older code then fails with STORAGE_ERROR and the data is intact',
    async run(env) {
      const storage = sessions(env);
      await storage.saveEvent('s1', userEvent(1, 'kept'));
      const newer = await withinTime(
        openRaw(env, DB_VERSION + 1),
        5000,
        'the upgrade hung: the storage did not close on versionchange',
      );
      const error = await check.rejects(
        storage.saveEvent('s1', userEvent(2, 'too old')),
        'STORAGE_ERROR',
        'save',
      );
      check.ok(/newer version/.test(error.message), `message says why: ${error.message}`);
      check.deepEqual(
        await newer.getAll('events'),
        [{ sessionId: 's1', seq: 0, event: userEvent(1, 'kept') }],
        'data',
      );
      newer.close();
    },
  },
  {
    name: 'an upgrade blocked by a tab that keeps an old version open fails after the timeout, then works once it closes',
    async run(env) {
      const old = await openRaw(env, 1, (db) => MIGRATIONS[0]!(db, undefined as never));
      await old.put('events', { sessionId: 's1', seq: 0, event: userEvent(1, 'from the old tab') });
      // This tab ignores `versionchange`, so the upgrade to the current version is blocked.
      const storage = sessions(env, { blockedTimeoutMs: 50 });
      const error = await withinTime(
        check.rejects(storage.loadSession('s1'), 'STORAGE_ERROR', 'load while blocked'),
        5000,
        'a blocked upgrade hung',
      );
      check.ok(/blocked/.test(error.message), `message says blocked: ${error.message}`);
      old.close();
      check.deepEqual(
        await storage.loadSession('s1'),
        [userEvent(1, 'from the old tab')],
        'after the old tab closed',
      );
      await storage.close();
    },
  },
  {
    name: 'close() waits for pending saves, and the next use reopens the database',
    async run(env) {
      const storage = sessions(env);
      const saved = storage.saveEvent('s1', userEvent(1, 'pending'));
      await storage.close();
      await saved;
      await storage.saveEvent('s1', userEvent(2, 'after close'));
      check.deepEqual(
        await storage.loadSession('s1'),
        [userEvent(1, 'pending'), userEvent(2, 'after close')],
        'events',
      );
      await storage.close();
    },
  },
  {
    name: 'fencing across two storages on one database (two tabs): the later claim wins, the earlier writer is refused',
    async run(env) {
      const [a, b] = [sessions(env), sessions(env)];
      check.equal(a.namespace, env.dbName, 'namespace is the database name');
      const epochA = await a.claimWriter('s1');
      await a.saveEvent('s1', userEvent(1, 'A before'), { writerEpoch: epochA });
      const epochB = await b.claimWriter('s1');
      check.ok(epochB > epochA, `B's epoch ${epochB} is greater than A's ${epochA}`);
      const late = await check.rejects(
        a.saveEvent('s1', userEvent(2, 'A late'), { writerEpoch: epochA }),
        'STORAGE_ERROR',
        "A's write after B's claim",
      );
      check.equal((late.cause as { code?: string }).code, 'SESSION_WRITER_REPLACED', 'cause');
      await b.saveEvent('s1', userEvent(3, 'B'), { writerEpoch: epochB });
      for (const storage of [a, b]) {
        check.deepEqual(
          await storage.loadSession('s1'),
          [userEvent(1, 'A before'), userEvent(3, 'B')],
          'history seen by either tab',
        );
      }
      // A claim on another session in the other tab still grows the shared counter.
      check.ok((await a.claimWriter('s2')) > epochB, 'epochs grow across sessions and tabs');
      await a.close();
      await b.close();
    },
  },
  {
    name: 'a stale write is refused alone: the other writes of its batch are stored, in order',
    async run(env) {
      const storage = sessions(env);
      const old = await storage.claimWriter('s1');
      const current = await storage.claimWriter('s1');
      // Called in one tick, so they share one transaction.
      const writes = [
        storage.saveEvent('s1', userEvent(1, 'current one'), { writerEpoch: current }),
        storage.saveEvent('s1', userEvent(2, 'stale'), { writerEpoch: old }),
        storage.saveEvent('other', userEvent(3, 'unfenced')),
        storage.saveDraft('s1', { turnId: 't1', text: 'draft', updatedAt: at(4) }),
        storage.saveEvent('s1', userEvent(5, 'current two'), { writerEpoch: current }),
      ];
      const outcomes = await Promise.allSettled(writes);
      check.deepEqual(
        outcomes.map((outcome) => outcome.status),
        ['fulfilled', 'rejected', 'fulfilled', 'fulfilled', 'fulfilled'],
        'outcomes',
      );
      check.deepEqual(
        await storage.loadSession('s1'),
        [userEvent(1, 'current one'), userEvent(5, 'current two')],
        'fenced session',
      );
      check.deepEqual(await storage.loadSession('other'), [userEvent(3, 'unfenced')], 'other session');
      check.equal((await summaryOf(storage, 's1')).eventCount, 2, 'eventCount');
      check.equal((await storage.loadDraft('s1'))?.text, 'draft', 'draft');
      await storage.close();
    },
  },
  {
    name: 'deleteSession removes the draft and the writer record; a corrupt writer record refuses fenced writes until the next claim',
    async run(env) {
      const { reports, onCorruptRecord } = corruptRecords();
      const storage = sessions(env, { onCorruptRecord });
      const epoch = await storage.claimWriter('s1');
      await storage.saveEvent('s1', userEvent(1, 'hi'), { writerEpoch: epoch });
      await storage.saveDraft('s1', { turnId: 't1', text: 'draft', updatedAt: at(2) });
      await storage.deleteSession('s1');
      const raw = await openRaw(env);
      check.equal(await raw.get('drafts', 's1'), undefined, 'draft record after delete');
      check.equal(await raw.get('writers', 's1'), undefined, 'writer record after delete');
      check.equal(await raw.get('writers', 0), epoch, 'the epoch counter stays');

      const next = await storage.claimWriter('s1');
      await raw.put('writers', 'not a number', 's1');
      raw.close();
      await check.rejects(
        storage.saveEvent('s1', userEvent(3, 'fenced'), { writerEpoch: next }),
        'STORAGE_ERROR',
        'fenced write over a corrupt writer record',
      );
      check.deepEqual(
        reports.map((r) => [r.store, r.key]),
        [['writers', 's1']],
        'corrupt record reported',
      );
      const again = await storage.claimWriter('s1');
      check.ok(again > next, 'the next claim is greater');
      await storage.saveEvent('s1', userEvent(4, 'after the claim'), { writerEpoch: again });
      check.deepEqual(await storage.loadSession('s1'), [userEvent(4, 'after the claim')], 'events');
      await storage.close();
    },
  },
  {
    name: '10,000 events saved and loaded back in order',
    async run(env) {
      const storage = sessions(env);
      const events = Array.from({ length: 10_000 }, (_, i) =>
        i % 2 === 0 ? userEvent(i, `message ${i}`) : toolResultEvent(i, `result ${i}`),
      );
      // Bursts of 100 unawaited saves, like tool results arriving together.
      for (let i = 0; i < events.length; i += 100) {
        await Promise.all(events.slice(i, i + 100).map((event) => storage.saveEvent('big', event)));
      }
      const loaded = await storage.loadSession('big');
      check.equal(loaded?.length, 10_000, 'events loaded');
      check.deepEqual(loaded, events, 'events in order');
      const summary = await summaryOf(storage, 'big');
      check.equal(summary.eventCount, 10_000, 'eventCount');
      check.equal(summary.turnCount, 5_000, 'turnCount');
      await storage.close();
    },
  },
];
