/**
 * The IndexedDB storages in real Chromium: the page bundle `storage.page.ts` runs each case of
 * the shared contracts and of the IndexedDB-specific suite against the browser's IndexedDB; each
 * case is its own vitest test here, so a failure names the case. Without Chromium every test
 * fails (see `harness.ts`), none is skipped.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { memoryStorageContract } from '../../src/testing/contracts/memory-storage.contract.js';
import { sessionStorageContract } from '../../src/testing/contracts/session-storage.contract.js';
import type { HarnessPage } from './harness.js';
import { useChromium } from './use-chromium.js';
import { indexedDbCases } from './indexeddb.cases.js';

/** A real browser on a busy 2-core machine: room for the 10,000-event cases. */
const SLOW = { timeout: 60_000 };

const PAGE_ENTRY = fileURLToPath(new URL('./storage.page.ts', import.meta.url));

const chromium = useChromium(PAGE_ENTRY, { firstPage: true });

/** The page every case runs in; fails the calling test with the start-up error if there is none. */
const page = (): HarnessPage => chromium.page();

describe('IndexedDbSessionStorage meets the SessionStorage contract (Chromium)', SLOW, () => {
  for (const { name } of sessionStorageContract) it(name, () => page().call('sessionContract', name));
});

describe('IndexedDbMemoryStorage meets the MemoryStorage contract (Chromium)', SLOW, () => {
  for (const { name } of memoryStorageContract) it(name, () => page().call('memoryContract', name));
});

describe('IndexedDB storages (Chromium)', SLOW, () => {
  for (const { name } of indexedDbCases) it(name, () => page().call('indexedDbCase', name));

  it('a persisted session loads the same after a page reload', async () => {
    const dbName = `reload-${Date.now()}`;
    await page().call('persistForReload', dbName);
    await page().reload();
    await page().call('loadAfterReload', dbName);
  });

  it('an agent session persisted in IndexedDB resumes after a page reload with the same session.messages', async () => {
    const dbName = `agent-${Date.now()}`;
    const live = await page().call<{ id: string; messages: unknown[] }>('runAgentSession', dbName);
    const types = live.messages.map((m) => (m as { type: string }).type);
    expect(types.filter((type) => type === 'user')).toHaveLength(2);
    expect(types).toContain('tool_call');
    expect(types).toContain('tool_result');
    expect(types.at(-1)).toBe('assistant');
    await page().reload();
    const resumed = await page().call<unknown[]>('resumeAgentSession', dbName, live.id);
    expect(resumed).toEqual(live.messages);
  });

  it('exceeding the real storage quota rejects with STORAGE_ERROR, keeps what was stored, and writes again once there is room', async () => {
    // An origin of its own: the space freed by the other cases' deleted databases is
    // reclaimed lazily, so the usage of the shared origin is no base for a quota.
    const fresh = await chromium.open({ freshOrigin: true });
    const { origin } = fresh;
    const dbName = `quota-${Date.now()}`;
    const cdp = await fresh.cdp();
    try {
      const usage = await fresh.call<number>('storageUsage');
      // Room for the small events, not for a burst of four 256 KiB events.
      await cdp.send('Storage.overrideQuotaForOrigin', { origin, quotaSize: usage + 512 * 1024 });
      const message = await fresh.call<string>('exceedQuota', dbName, 256 * 1024);
      expect(message).toMatch(/^.*QuotaExceededError.*quota is exceeded/);
    } finally {
      // Chromium may keep counting the failed write's space for a while: lift the quota, as a
      // user freeing space would, before checking that the storage writes again.
      await cdp.send('Storage.overrideQuotaForOrigin', { origin });
      await cdp.detach();
    }
    await fresh.call('writeAfterQuotaFreed', dbName);
    await fresh.close();
  });
});
