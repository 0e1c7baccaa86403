/**
 * The demo's dev server with a key in its environment (`OPENAI_API_KEY=… npm start`): the page
 * offers the server's model, its agent talks to the model through the dev server's proxy, and the
 * key never reaches the page. Runs the demo's own Vite config as `npm start` does, on a free port,
 * in real headless Chromium, in front of the local model server.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './support/chromium.js';
import { startDemoDevServer, type DemoDevServer } from './support/demo-dev-server.js';
import { DemoPage } from './support/demo-page.js';
import { ModelServer } from './support/model-server.js';

const SERVER_KEY = 'sk-dev-server-key-4711-0123456789';
const MODEL = 'e2e-server-model';

let model: ModelServer;
let dev: DemoDevServer;
let browser: Browser;
let origin: string;

beforeAll(async () => {
  [model, browser] = await Promise.all([ModelServer.start(), launchChromium()]);
  // What `npm start` reads when its config loads.
  dev = await startDemoDevServer(
    { OPENAI_API_KEY: SERVER_KEY, OPENAI_BASE_URL: model.baseURL, OPENAI_MODELS: MODEL },
    // The first page load transforms the whole demo: do it before the page's readiness clock runs.
    { warm: true },
  );
  origin = dev.origin;
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await Promise.all([dev?.close(), model?.close()]);
});

describe("the demo's dev server with a key: the server's model", () => {
  it('answers through the proxy, with the key only between the dev server and the model', async () => {
    const page = await DemoPage.open(browser, origin);
    try {
      // A first visit starts on the server's model; the settings can leave it and come back.
      expect(await page.page.getAttribute('.model-badge', 'data-offline')).toBe('false');
      await page.page.click('.settings-button');
      await page.page.click('dialog.settings button:text("Use the offline model")');
      await page.page.waitForSelector('.model-badge[data-offline="true"]');
      await page.waitReady();
      await page.page.click('.settings-button');
      await page.page.click('dialog.settings button.server-model');
      await page.page.waitForSelector('.model-badge[data-offline="false"]');
      await page.waitReady();
      expect(await page.page.textContent('.model-badge')).toBe(
        `Model ${MODEL} at the demo server (key kept there)`,
      );

      model.respondWith(() => ({ text: 'Served through the proxy.' }));
      await page.sendAndWait('Hello?');
      expect((await page.items()).at(-1)).toMatchObject({
        kind: 'assistant',
        status: 'complete',
        text: 'Served through the proxy.',
      });
      const [request] = model.turnRequests;
      expect(request?.headers['authorization']).toBe(`Bearer ${SERVER_KEY}`);
      expect(request?.body.model).toBe(MODEL);

      // Nothing the page holds has the key: not its settings, not its storage, not its globals.
      const held = await page.page.evaluate(() =>
        JSON.stringify([localStorage, (globalThis as Record<string, unknown>)['__DEMO_ENDPOINT_DEFAULTS__']]),
      );
      expect(held).toContain(MODEL);
      expect(held).not.toContain(SERVER_KEY);
      expect(await page.storedText()).not.toContain(SERVER_KEY);
      expect(page.blocked).toEqual([]);
    } finally {
      await page.close();
    }
  }, 120_000);
});
