/**
 * The demo's server mode ("Run on: the server"), as `npm start` serves it: the dev server runs
 * the agent with its sessions on PGlite in a (temporary) data folder, and its model through the
 * key in the dev server's environment. In real headless Chromium: a chat, an approval, and a
 * reload that shows the same conversation from the server; and every response the page
 * received — documents, modules, JSON, and the bytes of every stream, SSE included — is read
 * for the key, which none may contain.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Response } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './support/chromium.js';
import { startDemoDevServer, type DemoDevServer } from './support/demo-dev-server.js';
import { DemoPage, type ShownItem } from './support/demo-page.js';
import { ModelServer } from './support/model-server.js';

const SERVER_KEY = 'sk-server-mode-key-marker-5813-abcdef';
const MODEL = 'e2e-server-mode-model';

/**
 * Runs in the page before the demo: every byte each `fetch` response delivers goes to the test
 * (`__tapped`, a binding that outlives reloads) as it arrives, so a stream the page closes early
 * (a followed session, a reload) is recorded too.
 */
const FETCH_TAP = `(() => {
  const original = window.fetch.bind(window);
  let next = 0;
  window.fetch = async (...args) => {
    const response = await original(...args);
    if (!response.body) return response;
    const [mine, copy] = response.body.tee();
    const id = next++;
    // Known from its headers on, even if it never sends a byte.
    await window.__tapped(id, response.url, '');
    void (async () => {
      const reader = copy.getReader();
      const decoder = new TextDecoder();
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          await window.__tapped(id, response.url, decoder.decode(value, { stream: true }));
        }
      } catch {}
    })();
    return new Response(mine, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
})();`;

/** What the tap saw: per fetch response, its url and text so far. */
async function tapFetches(context: BrowserContext) {
  const seen = new Map<string, { url: string; text: string }>();
  let page = 0;
  context.on('page', () => void page++);
  await context.exposeBinding('__tapped', ({ frame }, id: number, url: string, chunk: string) => {
    // Ids restart with each document: key them by the document too.
    const key = `${frame.url()}#${page}#${id}`;
    const entry = seen.get(key) ?? { url, text: '' };
    entry.text += chunk;
    seen.set(key, entry);
  });
  await context.addInitScript(FETCH_TAP);
  return () => [...seen.values()];
}

let model: ModelServer;
let dev: DemoDevServer;
let browser: Browser;
let origin: string;
let dataDir: string;

beforeAll(async () => {
  [model, browser, dataDir] = await Promise.all([
    ModelServer.start(),
    launchChromium(),
    mkdtemp(join(tmpdir(), 'youyou-demo-server-mode-')),
  ]);
  // What `npm start` reads when its config loads.
  dev = await startDemoDevServer(
    {
      OPENAI_API_KEY: SERVER_KEY,
      OPENAI_BASE_URL: model.baseURL,
      OPENAI_MODELS: MODEL,
      DATABASE_URL: undefined,
      DEMO_DATA_DIR: dataDir,
    },
    { warm: true },
  );
  origin = dev.origin;
  // The agent server opens its database as the dev server starts: wait for it here, not in a test.
  const token = dev.token!;
  const warm = await fetch(`${origin}/agent/sessions`, {
    headers: { authorization: `Bearer ${token}`, 'x-youyou-demo-user': 'user-warmup-01' },
  });
  expect(warm.status).toBe(200);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await Promise.all([dev?.close(), model?.close()]);
  await rm(dataDir, { recursive: true, force: true });
});

/** Every response of `context`, with its body once it has one (a stream cut off has none). */
function recordResponses(context: BrowserContext) {
  const bodies: Promise<{ url: string; text: string | null }>[] = [];
  context.on('response', (response: Response) => {
    bodies.push(
      response.body().then(
        (body) => ({ url: response.url(), text: body.toString('utf8') }),
        () => ({ url: response.url(), text: null }),
      ),
    );
  });
  return () => Promise.all(bodies);
}

const comparable = (items: ShownItem[]) => items.map(({ kind, status, text }) => ({ kind, status, text }));

async function turnsEnded(page: DemoPage, n: number) {
  await page.page.waitForFunction((count) => document.querySelectorAll('.turn-summary').length >= count, n, {
    timeout: 30_000,
  });
  await page.waitReady();
}

describe('the demo in server mode', () => {
  it('chats, asks for approval and shows the same chat after a reload; no response carries the key', async () => {
    let responses!: () => Promise<{ url: string; text: string | null }[]>;
    let tapped!: () => { url: string; text: string }[];
    const page = await DemoPage.open(browser, origin, async (context) => {
      tapped = await tapFetches(context);
      responses = recordResponses(context);
    });
    try {
      expect(await page.page.getAttribute('.run-on-badge', 'data-runs-on')).toBe('browser');
      await page.page.click('.settings-button');
      await page.page.check('dialog.settings input[name="runOn"][value="server"]');
      await page.page.click('dialog.settings button[type="submit"]');
      await page.page.waitForSelector('.run-on-badge[data-runs-on="server"]');
      await page.waitReady();
      // A first visit of a dev server with a key uses the server's model.
      expect(await page.page.textContent('.model-badge')).toBe(
        `Model ${MODEL} at the demo server (key kept there)`,
      );

      // A chat: the agent on the server asks the model with the server's key.
      model.respondWith(() => ({ text: 'Answered by the agent on the server.' }));
      await page.send('Hello from the page');
      await turnsEnded(page, 1);
      expect((await page.items()).at(-1)).toMatchObject({
        kind: 'assistant',
        status: 'complete',
        text: 'Answered by the agent on the server.',
      });
      expect(model.turnRequests[0]?.headers['authorization']).toBe(`Bearer ${SERVER_KEY}`);
      expect(model.turnRequests[0]?.body.model).toBe(MODEL);

      // An approval: the notes tool runs on the server once Allow is clicked.
      model.respondWith((_body, n) =>
        n === 0
          ? { toolCalls: [{ name: 'notes', arguments: { action: 'add', text: 'buy oat milk' } }] }
          : { text: 'Noted.' },
      );
      await page.send('Keep a note: buy oat milk');
      const card = page.page.locator('.row.tool[data-status="awaiting_approval"]');
      await card.locator('.approval:not([hidden]) button.approval-allow').waitFor({ timeout: 30_000 });
      expect(model.turnRequests).toHaveLength(1);
      await card.locator('button.approval-allow').click();
      await turnsEnded(page, 2);
      const shown = await page.items();
      expect(shown.find((i) => i.kind === 'tool')).toMatchObject({ status: 'done' });
      expect(shown.find((i) => i.kind === 'tool')?.text).toContain('Saved note 1: buy oat milk');
      expect(shown.at(-1)).toMatchObject({ kind: 'assistant', text: 'Noted.' });
      // Kept on the server: not in this browser's notes.
      expect(await page.page.evaluate(() => localStorage.getItem('youyou-demo:notes'))).toBeNull();
      await page.screenshot('demo-server-mode');

      // A reload: still on the server, and the session list and the chat come from it.
      await page.reload();
      expect(await page.page.getAttribute('.run-on-badge', 'data-runs-on')).toBe('server');
      await page.page.waitForSelector('.sessions .session-open');
      expect(await page.sessionTitles()).toHaveLength(1);
      await page.page.click('.sessions .session-open');
      await page.page.waitForFunction(
        (n) => document.querySelectorAll('.chat [data-kind]').length >= n,
        shown.length,
      );
      await page.waitReady();
      expect(comparable(await page.items())).toEqual(comparable(shown));

      // Nothing the page received holds the key: every byte of every stream, and (once the page
      // is closed, which ends the stream still open) every response body.
      expect(
        await page.page.evaluate(() => JSON.stringify([localStorage, document.documentElement.outerHTML])),
      ).not.toContain(SERVER_KEY);
      expect(page.blocked).toEqual([]);
      await page.close();
      const bodies = await responses();
      const streamed = tapped();
      expect(bodies.some((b) => b.url.includes('/agent/sessions'))).toBe(true);
      expect(streamed.some((s) => s.text.includes('Answered by the agent on the server.'))).toBe(true);
      expect(streamed.some((s) => s.text.includes('Saved note 1: buy oat milk'))).toBe(true);
      // A response whose body Chromium no longer has (a stream the page closed, a page reloaded
      // since) was a fetch: its bytes are in what the tap saw.
      const tappedUrls = new Set(streamed.map((t) => t.url));
      for (const { url, text } of bodies) if (text === null) expect(tappedUrls, url).toContain(url);
      expect(streamed.some((t) => new URL(t.url).pathname.endsWith('/turns'))).toBe(true);
      for (const { url, text } of [...bodies, ...streamed]) {
        expect(text ?? '', url).not.toContain(SERVER_KEY);
      }
    } finally {
      await page.close();
    }
  }, 180_000);
});
