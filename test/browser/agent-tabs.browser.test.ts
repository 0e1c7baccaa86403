/**
 * One writer per session with real Agents in real Chromium: two pages of one browser context
 * (two tabs: shared Web Locks, IndexedDB and BroadcastChannel), each running an Agent with the
 * default session lock on the same database. Without Chromium every test fails (see
 * `harness.ts`), none is skipped.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { HarnessPage } from './harness.js';
import { useChromium } from './use-chromium.js';

const PAGE_ENTRY = fileURLToPath(new URL('./agent-tabs.page.ts', import.meta.url));
const SLOW = { timeout: 60_000 };

const chromium = useChromium(PAGE_ENTRY);
let cases = 0;
const fresh = (what: string) => `${what}-${Date.now()}-${(cases += 1)}`;

const tab = (): Promise<HarnessPage> => chromium.open();

/** Two tabs with an agent each on the database `db`; tab A has a session with one turn. */
async function twoTabs(db: string) {
  const [a, b] = [await tab(), await tab()];
  await a.call('openAgent', 'a', db);
  await b.call('openAgent', 'b', db);
  const id = (await a.call('newSession', 'a')) as string;
  expect(await a.call('send', 'a', 'one (A)', true)).toBe('completed');
  return { a, b, id };
}

describe('two tabs of one chat, with Agents (Chromium)', SLOW, () => {
  it("B's resume of the session A holds is refused: SESSION_LOCKED", async () => {
    const { a, b, id } = await twoTabs(fresh('locked'));
    expect(await b.call('resume', 'b', id)).toBe('SESSION_LOCKED');
    await Promise.all([a.close(), b.close()]);
  });

  it("B's steal: A emits session_lock_lost and its running turn is cancelled; A writes nothing more, the stored history does not interleave", async () => {
    const { a, b, id } = await twoTabs(fresh('steal'));
    expect(await a.call('send', 'a', 'hold: two (A)', false)).toBe('started');
    expect(await b.call('resume', 'b', id, 'steal')).toBe('ok');
    const seen = (await a.call('eventTypes', 'a', 'turn_cancelled')) as string[];
    expect(seen).toContain('session_lock_lost');
    expect(seen).toContain('turn_cancelled');
    expect(seen.indexOf('session_lock_lost')).toBeLessThan(seen.indexOf('turn_cancelled'));
    expect(await a.call('send', 'a', 'three (A)', true)).toBe('SESSION_CLOSED');
    expect(await b.call('send', 'b', 'three (B)', true)).toBe('completed');
    expect(await b.call('stored', 'b', id)).toEqual(['one (A)', 'hold: two (A)', 'three (B)']);
    await Promise.all([a.close(), b.close()]);
  });

  it("'wait' opens the session soon after A's tab closes", async () => {
    const { a, b, id } = await twoTabs(fresh('wait'));
    await b.call('startWaitingResume', 'b', id);
    await a.close();
    await b.call('waited', 'b');
    expect(await b.call('send', 'b', 'after the wait', true)).toBe('completed');
    await b.close();
  });

  it("B's sessionChanges sees A's appends", async () => {
    const { a, b, id } = await twoTabs(fresh('changes'));
    const heard = (await b.call('changes', 'b', `${id}:appended`)) as string[];
    expect(heard[0]).toBe(`${id}:locked`);
    expect(heard).toContain(`${id}:appended`);
    await a.call('closeSession', 'a');
    expect(((await b.call('changes', 'b', `${id}:released`)) as string[]).at(-1)).toBe(`${id}:released`);
    await Promise.all([a.close(), b.close()]);
  });

  it('resumes a stored session of 1,000 events with all its messages', async () => {
    const page = await tab();
    expect(await page.call('resumeStored', fresh('resume'), 's1', 1_000)).toBe(999);
    await page.close();
  });
});
