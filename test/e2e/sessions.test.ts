/**
 * The sidebar: sessions survive a reload, which reopens the one that was open with the same
 * items, and resume from the list; a reload without a message stores no empty session; search
 * and delete.
 */
import { describe, expect, it } from 'vitest';
import { useDemo } from './support/fixture.js';

const e2e = useDemo();

describe('the demo\u2019s sessions', () => {
  it('a reload reopens the open session with the items it showed; reloads store no empty sessions', async () => {
    const page = await e2e.open();
    const replies = [
      { text: 'Hello! How can I help?', chunks: 3 },
      { toolCalls: [{ name: 'clock', arguments: { timeZone: 'Asia/Tokyo' } }] },
      { text: 'It is late evening in Tokyo.', chunks: 3 },
      { hold: 'Once upon a time' },
    ];
    e2e.server.respondWith((_body, n) => replies[n]!);
    await page.sendAndWait('Hello there');
    await page.sendAndWait('What time is it in Tokyo?');
    await page.send('Tell me a story.');
    await page.page.waitForSelector('.row.assistant .text:text("Once upon a time")');
    await page.page.click('.composer .stop');
    await page.page.waitForSelector('.turn-summary[data-status="cancelled"]');
    const live = await page.items();
    expect(live.map((i) => `${i.kind}:${i.id}:${i.status}`)).toEqual([
      'user:message-0:null',
      'assistant:message-1:complete',
      'user:message-2:null',
      'tool:call_0_clock:done',
      'assistant:message-6:complete',
      'user:message-7:null',
      'assistant:message-8:incomplete',
      'notice:message-9:null',
    ]);
    expect(live[3]!.text).toMatch(
      /^clock\(\{\n {2}"timeZone": "Asia\/Tokyo"\n\}\) \u2192 .+ \(Asia\/Tokyo\)$/,
    );

    await page.reload();
    await page.reload();
    // The session that was open reopens, with the items it showed.
    await page.page.waitForSelector('.sessions li.active');
    await page.waitReady();
    expect(await page.items()).toEqual(live);
    expect(await page.sessionTitles()).toEqual(['Hello there']);
    expect(await page.page.textContent('.session-meta')).toContain('3 turn(s)');
    await page.screenshot('demo-resumed');

    // A new chat has no session until its first message: reloading it stores no empty one.
    await page.page.click('.new-chat');
    await page.waitReady();
    await page.reload();
    await page.reload();
    expect(await page.items()).toEqual([]);
    expect(await page.sessionTitles()).toEqual(['Hello there']);
    await page.page.click('.sessions .session-open');
    await page.page.waitForSelector('.sessions li.active');
    await page.waitReady();
    expect(await page.items()).toEqual(live);
  });

  it('finds sessions by their text and deletes one, for good', async () => {
    const page = await e2e.open();
    e2e.server.respondWith((body) => {
      const last = body.messages?.at(-1)?.content;
      return { text: `About ${String(last)}: noted.` };
    });
    await page.sendAndWait('Apples are red');
    await page.page.click('.new-chat');
    await page.waitReady();
    await page.sendAndWait('Bananas are yellow');
    expect(await page.sessionTitles()).toEqual(['Bananas are yellow', 'Apples are red']);

    await page.page.fill('.sidebar input[type="search"]', 'apples');
    await expect.poll(() => page.sessionTitles()).toEqual(['Apples are red']);
    await page.page.fill('.sidebar input[type="search"]', 'yellow: noted');
    await expect.poll(() => page.sessionTitles()).toEqual(['Bananas are yellow']);

    await page.page.click('.sessions .session-delete');
    await expect
      .poll(() => page.page.textContent('.sessions-status'))
      .toBe('No session mentions \u201cyellow: noted\u201d.');
    // The open session was the one deleted: the chat is a new one again.
    expect(await page.items()).toEqual([]);
    await page.page.fill('.sidebar input[type="search"]', '');
    await expect.poll(() => page.sessionTitles()).toEqual(['Apples are red']);
    await page.reload();
    expect(await page.sessionTitles()).toEqual(['Apples are red']);
  });
});
