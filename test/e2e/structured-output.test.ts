/**
 * The demo's structured answer and session budget: "Plan a trip" asks the offline model for a
 * trip plan matching a zod schema, and the trip card fills in while the plan's arguments stream,
 * then shows the validated plan; a session budget set in the settings shows as a meter under the
 * chat, and a request it cannot pay for is not sent.
 */
import { describe, expect, it } from 'vitest';
import { useDemo } from './support/fixture.js';

const e2e = useDemo();

describe('the demo with a structured answer', () => {
  it('fills the trip card in live, then shows the validated plan', async () => {
    const page = await e2e.open({ offline: true });
    // Every state the card goes through, recorded in the page as it changes.
    await page.page.evaluate(() => {
      const card = document.querySelector('.trip-card')!;
      const seen: { status: string; title: string; days: number }[] = [];
      (window as unknown as { tripStates: typeof seen }).tripStates = seen;
      new MutationObserver(() =>
        seen.push({
          status: (card as HTMLElement).dataset['status'] ?? '',
          title: card.querySelector('.trip-title')?.textContent ?? '',
          days: card.querySelectorAll('.trip-day').length,
        }),
      ).observe(card, { subtree: true, childList: true, characterData: true, attributes: true });
    });
    await page.page.click('.plan-trip');
    await page.page.waitForSelector('.trip-card[data-status="done"]', { timeout: 15_000 });

    expect(await page.page.textContent('.trip-card .trip-title')).toBe('Three days in Kyoto');
    const days = await page.page.$$eval('.trip-card .trip-day', (rows) => rows.map((r) => r.textContent));
    expect(days).toHaveLength(3);
    expect(days[0]).toMatch(/^Day 1: Fushimi Inari at dawn/);

    const states = await page.page.evaluate(
      () =>
        (window as unknown as { tripStates: { status: string; title: string; days: number }[] }).tripStates,
    );
    const streaming = states.filter((s) => s.status === 'streaming');
    // Seen while it streamed: a part of the title, and fewer days than the plan has.
    expect(streaming.some((s) => s.title !== '' && s.title !== 'Three days in Kyoto')).toBe(true);
    expect(streaming.some((s) => s.days > 0 && s.days < 3)).toBe(true);
    for (const s of streaming) expect('Three days in Kyoto'.startsWith(s.title)).toBe(true);
    // The final_answer call shows in the chat as a tool card, accepted.
    await page.waitReady();
    const items = await page.items();
    expect(items.at(0)).toMatchObject({ kind: 'user', text: 'Plan a three-day trip to Kyoto.' });
    expect(items.find((i) => i.kind === 'tool')).toMatchObject({ status: 'done' });
    expect(page.blocked).toEqual([]);
  });

  it('shows the session budget as a meter, and sends no request the budget cannot pay for', async () => {
    const page = await e2e.open({ offline: true });
    expect(await page.page.isHidden('.status-bar .budget')).toBe(true);
    await page.page.click('.settings-button');
    // The offline model's pretend prices: $0.50 per million input tokens. Any request costs more.
    await page.page.fill('dialog.settings input[name="sessionBudgetUsd"]', '0.00001');
    await page.page.click('dialog.settings button[type="submit"]');
    await page.waitReady();
    expect(await page.page.textContent('.status-bar .budget-text')).toBe('Budget $0.0 of $0.000010');

    await page.sendAndWait('What is 6 * 7?');
    const items = await page.items();
    expect(items.map((i) => i.kind)).toEqual(['user', 'notice']);
    expect(items[1]!.text).toMatch(/session budget of 0\.00001 USD has no room for the next request/);
    expect(await page.page.textContent('.turn-summary')).toMatch(/^completed/);
    expect(await page.page.getAttribute('.status-bar .budget-meter', 'aria-valuemax')).toBe('0.00001');
  });
});
