/**
 * The page bundle of the browser storage tests: the shared contract suites and the
 * IndexedDB-specific cases against the real IndexedDB of Chromium, each case on a database of
 * its own (deleted afterwards), plus the steps of the tests that need Node's help (a page reload,
 * a quota set through DevTools).
 * @module
 */
import * as z from 'zod/mini';
import {
  defineTool,
  IndexedDbMemoryStorage,
  IndexedDbSessionStorage,
  type Message,
  type SessionEvent,
} from '../../src/index.js';
import { reply, type ScriptStep } from '../../src/testing/index.js';
import { check } from '../../src/testing/contracts/check.js';
import { memoryStorageContract } from '../../src/testing/contracts/memory-storage.contract.js';
import { sessionStorageContract } from '../../src/testing/contracts/session-storage.contract.js';
import { indexedDbCases, toolResultEvent, userEvent, type IdbEnv } from './indexeddb.cases.js';
import { createTestAgent } from '../support/agent.js';
import { exposeToHarness } from './page-runtime.js';

let databases = 0;
/** A database name no other case in this page load uses. */
const freshDbName = () => `case-${Date.now()}-${(databases += 1)}`;

function deleteDatabase(name: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const request = indexedDB.deleteDatabase(name);
    request.onsuccess = () => resolve();
    request.onerror = () => reject(request.error);
  });
}

function find<C extends { name: string }>(cases: readonly C[], name: string): C {
  const found = cases.find((c) => c.name === name);
  if (!found) throw new Error(`no case named '${name}'`);
  return found;
}

/** Runs `body` on a fresh database, then deletes it (which also closes the storages' connections). */
async function onFreshDatabase(body: (dbName: string) => Promise<void>): Promise<void> {
  const dbName = freshDbName();
  try {
    await body(dbName);
  } finally {
    await deleteDatabase(dbName);
  }
}

const weather = defineTool({
  name: 'get_weather',
  description: 'Current weather for a city',
  parameters: z.object({ city: z.string() }),
  execute: async ({ arguments: { city } }) => `Sunny in ${city}`,
});

/** An agent whose sessions live in the IndexedDB database `dbName`, answering with `script`. */
async function agentOn(dbName: string, script: ScriptStep[]) {
  const sessionStorage = new IndexedDbSessionStorage({ dbName });
  return (await createTestAgent({ script, tools: [weather], sessionStorage })).agent;
}

/** `length` characters that do not compress. */
function randomText(length: number): string {
  const bytes = new Uint8Array(length);
  for (let i = 0; i < length; i += 65_536) crypto.getRandomValues(bytes.subarray(i, i + 65_536));
  return Array.from(bytes, (byte) => String.fromCharCode(33 + (byte % 90))).join('');
}

const QUOTA_EVENTS = [userEvent(1, 'small one'), toolResultEvent(2, 'small two')];
const quotaStorages = new Map<string, IndexedDbSessionStorage>();

/** The events the reload test persists. */
const RELOAD_EVENTS: SessionEvent[] = [
  {
    timestamp: '2024-05-01T10:00:00.000Z',
    payload: { type: 'metadata', key: 'session_config', value: { modelId: 'm' } },
  },
  userEvent(1, 'survives a reload'),
  {
    timestamp: '2024-05-01T10:00:02.000Z',
    payload: { type: 'tool_call', callId: 'c1', toolName: 't', arguments: { a: [1, 2] } },
  },
  toolResultEvent(3, 'tool output'),
  {
    timestamp: '2024-05-01T10:00:04.000Z',
    payload: {
      type: 'assistant_message',
      content: [{ type: 'text', text: 'done' }],
      status: 'incomplete',
    },
  },
];

exposeToHarness({
  async sessionContract(name: string) {
    const contractCase = find(sessionStorageContract, name);
    await onFreshDatabase((dbName) => contractCase.run(new IndexedDbSessionStorage({ dbName })));
  },

  async memoryContract(name: string) {
    const contractCase = find(memoryStorageContract, name);
    await onFreshDatabase((dbName) => contractCase.run(new IndexedDbMemoryStorage({ dbName })));
  },

  async indexedDbCase(name: string) {
    const idbCase = find(indexedDbCases, name);
    await onFreshDatabase((dbName) => idbCase.run({ indexedDB, dbName } satisfies IdbEnv));
  },

  /** Step 1 of the reload test: persist a session in `dbName`. */
  async persistForReload(dbName: string) {
    const storage = new IndexedDbSessionStorage({ dbName });
    for (const event of RELOAD_EVENTS) await storage.saveEvent('reloaded', event);
    await storage.close();
  },

  /** Step 2, after the reload: the same session comes back, then the database is removed. */
  async loadAfterReload(dbName: string) {
    const storage = new IndexedDbSessionStorage({ dbName });
    check.deepEqual(await storage.loadSession('reloaded'), RELOAD_EVENTS, 'events after reload');
    const { sessions } = await storage.listSessions(null, 10);
    check.deepEqual(
      sessions.map((s) => [s.id, s.title, s.modelId, s.eventCount]),
      [['reloaded', 'survives a reload', 'm', RELOAD_EVENTS.length]],
      'summary after reload',
    );
    await storage.close();
    await deleteDatabase(dbName);
  },

  /**
   * Step 1 of the public-API reload test: an agent on IndexedDB runs two turns (one with a
   * tool call) and closes the session. Returns the session's id and its live `messages`.
   */
  async runAgentSession(dbName: string) {
    const agent = await agentOn(dbName, [
      reply.toolCalls([{ name: 'get_weather', arguments: { city: 'Oslo' } }]),
      reply.text('It is sunny in Oslo.', { chunks: 3 }),
      reply.text('You are welcome.'),
    ]);
    const session = await agent.newSession();
    for (const text of ['Weather in Oslo?', 'Thanks!']) {
      const result = await (await session.sendMessage(text)).result;
      check.equal(result.status, 'completed', `turn '${text}'`);
    }
    const live = { id: session.id, messages: structuredClone(session.messages) as Message[] };
    await session.close();
    await agent.shutdown();
    return live;
  },

  /** Step 2, after the reload: a new agent resumes the session; returns its `messages`. */
  async resumeAgentSession(dbName: string, sessionId: string) {
    const agent = await agentOn(dbName, []);
    const resumed = await agent.resumeSession(sessionId);
    const messages = structuredClone(resumed.messages) as Message[];
    await resumed.close();
    await agent.shutdown();
    await deleteDatabase(dbName);
    return messages;
  },

  /** Bytes this origin uses, as the browser counts them for its quota. */
  async storageUsage() {
    return (await navigator.storage.estimate()).usage ?? 0;
  },

  /**
   * Step 1 of the quota test, with a small quota set from Node: small events fit, a burst of
   * large ones exceeds the quota and rejects with STORAGE_ERROR (cause `QuotaExceededError`),
   * and what was stored stays. Returns the error message.
   */
  async exceedQuota(dbName: string, bigEventBytes: number) {
    const storage = new IndexedDbSessionStorage({ dbName });
    quotaStorages.set(dbName, storage);
    for (const event of QUOTA_EVENTS) await storage.saveEvent('s1', event);
    // Random text: Chromium compresses stored values, so a repeated character would take no room.
    const big = toolResultEvent(3, randomText(bigEventBytes));
    const burst = [0, 1, 2, 3].map(() => storage.saveEvent('s1', big));
    const errors = await Promise.all(
      burst.map((save) => check.rejects(save, 'STORAGE_ERROR', 'save over the quota')),
    );
    check.equal((errors[0]!.cause as DOMException).name, 'QuotaExceededError', 'cause');
    check.deepEqual(await storage.loadSession('s1'), QUOTA_EVENTS, 'events stored before the failure');
    return errors[0]!.message;
  },

  /** Step 2, once Node has lifted the quota again: the same storage writes again. */
  async writeAfterQuotaFreed(dbName: string) {
    const storage = quotaStorages.get(dbName)!;
    await storage.saveEvent('s1', userEvent(4, 'still works'));
    check.deepEqual(
      await storage.loadSession('s1'),
      [...QUOTA_EVENTS, userEvent(4, 'still works')],
      'after the failure',
    );
    check.equal((await storage.listSessions(null, 1)).sessions[0]?.eventCount, 3, 'eventCount');
    await storage.close();
    await deleteDatabase(dbName);
  },
});
