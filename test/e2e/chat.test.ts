/**
 * The demo against a local OpenAI-compatible server (with CORS), set in its settings dialog:
 * streaming, a tool round, Stop, a retried failure, and model output that looks like HTML.
 */
import { describe, expect, it } from 'vitest';
import { TEST_API_KEY, TEST_MODEL, useDemo } from './support/fixture.js';

const e2e = useDemo();

describe('the demo on an OpenAI-compatible endpoint', () => {
  it('streams a reply into the chat, with the key sent to the server and stored nowhere', async () => {
    const page = await e2e.open();
    const answer = 'Streaming works: these words arrive in eight pieces, one after the other.';
    e2e.server.respondWith(() => ({ text: answer, chunks: 8, delayMs: 120 }));
    await page.send('Say something, slowly.');
    // Seen while it streams: a part of the answer, marked as streaming.
    const partial = await page.page.waitForSelector(
      '.row.assistant[data-status="streaming"] .text:not(:empty)',
    );
    expect(answer.startsWith((await partial.textContent()) ?? '')).toBe(true);
    expect(await partial.textContent()).not.toBe(answer);
    await page.page.waitForSelector('.turn-summary');
    expect(await page.items()).toEqual([
      { kind: 'user', id: 'message-0', status: null, text: 'Say something, slowly.' },
      { kind: 'assistant', id: 'message-1', status: 'complete', text: answer },
    ]);
    expect(await page.page.textContent('.turn-summary')).toMatch(
      /^completed · 120 in \/ 30 out tokens · cost unknown/,
    );

    const [request] = e2e.server.turnRequests;
    expect(request?.headers['authorization']).toBe(`Bearer ${TEST_API_KEY}`);
    expect(request?.body.model).toBe(TEST_MODEL);
    const stored = await page.storedText();
    expect(stored).toContain(answer);
    expect(stored).not.toContain(TEST_API_KEY);
    // The tab's sessionStorage holds which session it has open (a reload reopens it), not the key.
    expect(await page.page.evaluate(() => Object.keys(sessionStorage))).toEqual(['youyou-demo:open-session']);
    expect(await page.page.evaluate(() => JSON.stringify(sessionStorage))).not.toContain(TEST_API_KEY);
    expect(page.blocked).toEqual([]);
  });

  it('sends no Authorization header to an endpoint set without a key', async () => {
    const page = await e2e.open({ offline: true });
    await page.useEndpoint({ baseURL: e2e.server.baseURL, apiKey: '', model: TEST_MODEL });
    e2e.server.respondWith(() => ({ text: 'No key needed here.' }));
    await page.sendAndWait('Hello, local server?');
    expect((await page.items()).at(-1)).toMatchObject({ kind: 'assistant', text: 'No key needed here.' });
    expect(e2e.server.turnRequests.at(-1)?.headers).not.toHaveProperty('authorization');
  });

  it('shows a tool round as a card with its arguments, output and duration', async () => {
    const page = await e2e.open();
    e2e.server.respondWith((_body, n) =>
      n === 0
        ? { toolCalls: [{ name: 'calculator', arguments: { expression: '6 * 7' } }] }
        : { text: 'Six times seven is 42.' },
    );
    await page.sendAndWait('What is 6 * 7?');
    const card = page.page.locator('.row.tool');
    expect(await card.getAttribute('data-status')).toBe('done');
    expect(await card.locator('.tool-name').textContent()).toBe('calculator');
    expect(JSON.parse((await card.locator('.tool-arguments').textContent()) ?? '')).toEqual({
      expression: '6 * 7',
    });
    expect(await card.locator('.tool-output').textContent()).toBe('6 * 7 = 42');
    expect(await card.locator('.tool-duration').textContent()).toMatch(/^\d+(\.\d)? ms$/);
    // The model got the result back in the second request.
    const second = e2e.server.turnRequests.at(-1)!.body.messages!.at(-1);
    expect(second).toMatchObject({ role: 'tool', content: '6 * 7 = 42' });
    expect((await page.items()).at(-1)).toMatchObject({ kind: 'assistant', text: 'Six times seven is 42.' });
    await page.screenshot('demo-tool-round');
  });

  it('shows a failing tool call as an error card', async () => {
    const page = await e2e.open();
    e2e.server.respondWith((_body, n) =>
      n === 0
        ? { toolCalls: [{ name: 'calculator', arguments: { expression: '1 / 0' } }] }
        : { text: 'That cannot be done.' },
    );
    await page.sendAndWait('Divide one by zero.');
    const card = page.page.locator('.row.tool');
    expect(await card.getAttribute('data-status')).toBe('error');
    expect(await card.locator('.tool-output').textContent()).toBe(
      'Cannot evaluate "1 / 0": division by zero',
    );
  });

  it('Stop mid-stream keeps the partial answer as incomplete, and the session goes on', async () => {
    const page = await e2e.open();
    e2e.server.respondWith((_body, n) =>
      n === 0 ? { hold: 'The first half of an answer' } : { text: 'Still here.' },
    );
    await page.send('Tell me something long.');
    await page.page.waitForSelector(
      '.row.assistant[data-status="streaming"] .text:text("The first half of an answer")',
    );
    await page.page.click('.composer .stop');
    await page.page.waitForSelector('.turn-summary[data-status="cancelled"]');
    expect(await page.items()).toEqual([
      { kind: 'user', id: 'message-0', status: null, text: 'Tell me something long.' },
      { kind: 'assistant', id: 'message-1', status: 'incomplete', text: 'The first half of an answer' },
      {
        kind: 'notice',
        id: 'message-2',
        status: null,
        text: 'The answer was interrupted before it was finished.',
      },
    ]);
    await expect.poll(() => e2e.server.turnRequests[0]?.aborted).toBe(true);
    await page.screenshot('demo-stopped');

    await page.sendAndWait('Are you still there?');
    expect((await page.items()).slice(3)).toEqual([
      { kind: 'user', id: 'message-3', status: null, text: 'Are you still there?' },
      { kind: 'assistant', id: 'message-4', status: 'complete', text: 'Still here.' },
    ]);
    // The next request carried the partial answer and the note that it was interrupted.
    const roles = e2e.server.turnRequests[1]!.body.messages!.map((m) => m.role);
    expect(roles).toEqual(['system', 'user', 'assistant', 'system', 'user']);
  });

  it('says "retrying in N s" while it waits to retry a failed request, then answers', async () => {
    const page = await e2e.open();
    e2e.server.respondWith((_body, n) =>
      n === 0 ? { status: 503, retryAfterSeconds: 1 } : { text: 'Back again.' },
    );
    await page.send('Hello?');
    const banner = await page.page.waitForSelector('.retry-banner:not([hidden])');
    expect(await banner.textContent()).toMatch(/^Attempt 1 failed \(.*503.*\)\. Retrying in 1 s/);
    await page.screenshot('demo-retrying');
    await page.page.waitForSelector('.turn-summary[data-status="completed"]');
    expect(await page.page.isHidden('.retry-banner')).toBe(true);
    const items = await page.items();
    expect(items.at(-1)).toMatchObject({ kind: 'assistant', text: 'Back again.' });
    // The retried failure is one warning in the chat.
    expect(items.filter((i) => i.kind === 'notice')).toHaveLength(1);
  });

  it('shows a reply made of HTML as text: nothing in it runs', async () => {
    const page = await e2e.open();
    const html =
      '<img src=x onerror="window.__pwned = true"><b>bold?</b><script>window.__pwned = true</script>';
    e2e.server.respondWith(() => ({ text: html }));
    await page.sendAndWait('Reply with some HTML.');
    expect((await page.items()).at(-1)).toMatchObject({ kind: 'assistant', text: html });
    expect(await page.page.locator('.chat img, .chat b, .chat script').count()).toBe(0);
    expect(await page.page.evaluate(() => (window as { __pwned?: boolean }).__pwned)).toBeUndefined();
  });
});
