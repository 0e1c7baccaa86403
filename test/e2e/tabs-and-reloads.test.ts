/**
 * The demo across reloads and tabs: a reload in the middle of a streamed answer keeps what was
 * shown and offers to continue; a second tab of the same chat offers to take it over, and the
 * first tab then stops writing to it.
 */
import { describe, expect, it } from 'vitest';
import type { DemoPage } from './support/demo-page.js';
import { useDemo } from './support/fixture.js';

const e2e = useDemo();

/** Waits until the demo's IndexedDB holds `text` (in any store). */
async function stored(page: DemoPage, text: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if ((await page.storedText()).includes(text)) return;
    await page.page.waitForTimeout(50);
  }
  throw new Error(`'${text}' was never stored`);
}

describe('the demo across reloads and tabs', () => {
  it('a reload mid-stream shows the partial answer after the reload, and Continue completes the turn', async () => {
    const page = await e2e.open();
    e2e.server.respondWith((_body, n) =>
      n === 0 ? { hold: 'Once upon a time' } : { text: ', there lived a wren.', chunks: 2 },
    );
    await page.send('Tell me a story.');
    await page.page.waitForSelector('.row.assistant .text:text("Once upon a time")');
    await stored(page, 'Once upon a time'); // the streaming draft is checkpointed

    await page.reload();
    await page.page.click('.sessions .session-open');
    await page.page.waitForSelector('.session-banner[data-kind="interrupted"]');
    expect(await page.page.textContent('.session-banner')).toContain('before the answer was finished');
    expect(await page.items()).toEqual([
      { kind: 'user', id: 'message-0', status: null, text: 'Tell me a story.' },
      { kind: 'assistant', id: expect.any(String), status: 'incomplete', text: 'Once upon a time' },
    ]);
    await page.screenshot('demo-interrupted');

    await page.page.click('.session-banner .continue');
    await page.page.waitForSelector('.turn-summary[data-status="completed"]');
    await page.waitReady();
    expect(await page.page.isHidden('.session-banner')).toBe(true);
    const shown = await page.items();
    expect(shown.filter((i) => i.kind === 'user')).toHaveLength(1);
    expect(shown.at(-1)).toMatchObject({
      kind: 'assistant',
      status: 'complete',
      text: ', there lived a wren.',
    });
    // The continued request carried the partial answer, marked as interrupted, and no new user message.
    const messages = e2e.server.turnRequests.at(-1)!.body.messages!;
    expect(messages.filter((m) => m.role === 'user')).toHaveLength(1);
    expect(JSON.stringify(messages)).toContain('Once upon a time');
    expect(JSON.stringify(messages)).toContain('interrupted before it was finished');
  });

  it('a second tab of the same chat offers to take it over; the first tab then shows it lost the chat', async () => {
    const first = await e2e.open();
    e2e.server.respondWith((_body, n) => ({
      text: n === 0 ? 'First answer.' : 'Answer from the second tab.',
    }));
    await first.sendAndWait('Hello from tab one');

    const second = await first.openTab();
    await second.page.click('.sessions .session-open');
    await second.page.waitForSelector('.session-banner[data-kind="held"]');
    expect(await second.page.textContent('.session-banner')).toContain('open in another tab');

    await second.page.click('.session-banner .take-over');
    await second.waitReady();
    await first.page.waitForSelector('.session-banner[data-kind="lost"]');
    expect(await second.items()).toEqual(await first.items());

    await second.sendAndWait('Hello from tab two');
    // Tab one's list heard of tab two's turn (agent.sessionChanges) without a reload.
    await first.page.waitForFunction(
      () => document.querySelector('.session-meta')?.textContent?.includes('2 turn(s)'),
      null,
      {
        timeout: 10_000,
      },
    );
    // Tab one wrote nothing more: the stored chat is what tab two shows.
    expect((await second.items()).map((i) => i.text)).toEqual([
      'Hello from tab one',
      'First answer.',
      'Hello from tab two',
      'Answer from the second tab.',
    ]);
    // That a tab which lost the chat cannot write to it is the library's guarantee, tested where
    // a write can be attempted (test/agent/one-writer.test.ts): the demo never sends from it.
  });
});
