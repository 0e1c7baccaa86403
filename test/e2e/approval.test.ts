/**
 * Approval in the demo: the notes tool asks before it adds a note. Its card shows Allow / Deny /
 * Always; Allow runs the tool, Deny shows the denial the model reads, Always lets the next note
 * through without asking.
 */
import { describe, expect, it } from 'vitest';
import type { DemoPage } from './support/demo-page.js';
import { useDemo } from './support/fixture.js';

const e2e = useDemo();

/** The card of the (only) waiting call, once it shows its buttons. */
async function waitingCard(page: DemoPage) {
  const card = page.page.locator('.row.tool[data-status="awaiting_approval"]');
  await card.locator('.approval:not([hidden]) button.approval-allow').waitFor({ timeout: 15_000 });
  return card;
}

/** Waits until `n` turns have ended (each shows its usage line) and the demo is ready again. */
async function turnsEnded(page: DemoPage, n: number) {
  await page.page.waitForFunction((count) => document.querySelectorAll('.turn-summary').length >= count, n, {
    timeout: 15_000,
  });
  await page.waitReady();
}

const savedNotes = (page: DemoPage) => page.page.evaluate(() => localStorage.getItem('youyou-demo:notes'));

describe('approval in the demo', () => {
  it('shows an approval card for a note; nothing is saved until Allow, which runs the tool', async () => {
    const page = await e2e.open({ offline: true });
    await page.send('note: buy oat milk');
    const card = await waitingCard(page);
    expect(await card.locator('.tool-status').textContent()).toBe('awaiting approval');
    expect(await card.locator('.approval button').allTextContents()).toEqual([
      'Allow',
      'Deny',
      'Always allow',
    ]);
    expect(await savedNotes(page)).toBeNull();
    await page.screenshot('demo-approval-card');

    await card.locator('button.approval-allow').click();
    await turnsEnded(page, 1);
    const tool = (await page.items()).find((i) => i.kind === 'tool');
    expect(tool?.status).toBe('done');
    expect(tool?.text).toContain('Saved note 1: buy oat milk');
    expect(await page.page.locator('.row.tool .approval').isHidden()).toBe(true);
    expect(await savedNotes(page)).toBe(JSON.stringify(['buy oat milk']));
    expect(page.blocked).toEqual([]);
  });

  it('Deny keeps the tool from running and shows the denial; Always lets the next note through', async () => {
    const page = await e2e.open({ offline: true });
    await page.send('note: sell the car');
    await (await waitingCard(page)).locator('button.approval-deny').click();
    await turnsEnded(page, 1);
    const denied = (await page.items()).find((i) => i.kind === 'tool');
    expect(denied?.status).toBe('denied');
    expect(denied?.text).toContain('Tool call denied by the user: the user clicked Deny');
    expect(await savedNotes(page)).toBeNull();

    await page.send('note: water the plants');
    await (await waitingCard(page)).locator('button.approval-always').click();
    await turnsEnded(page, 2);
    // Always: this note is saved without a card asking.
    await page.sendAndWait('note: call mum');
    const tools = (await page.items()).filter((i) => i.kind === 'tool');
    expect(tools.map((t) => t.status)).toEqual(['denied', 'done', 'done']);
    expect(await savedNotes(page)).toBe(JSON.stringify(['water the plants', 'call mum']));
  });
});

describe('approval across a reload', () => {
  it('a reload while a note waits: the chat offers Continue, the card comes back, Allow saves the note once', async () => {
    const page = await e2e.open({ offline: true });
    await page.send('note: water the plants');
    await waitingCard(page);
    await page.reload();
    await page.page.click('.sessions .session-open');
    await page.page.waitForSelector('.session-banner[data-kind="interrupted"]');
    expect(await page.page.textContent('.session-banner')).toContain('waited for approval');
    expect(await savedNotes(page)).toBeNull();

    await page.page.click('.session-banner .continue');
    const card = await waitingCard(page);
    await card.locator('button.approval-allow').click();
    await turnsEnded(page, 1);
    expect(await savedNotes(page)).toBe(JSON.stringify(['water the plants']));
    const tools = (await page.items()).filter((i) => i.kind === 'tool');
    expect(tools.map((t) => t.status)).toEqual(['done']);
  });
});
