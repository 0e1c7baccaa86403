/**
 * What every end-to-end file starts: the built demo on 127.0.0.1, Chromium, and (when asked)
 * the local model server; all stopped after the file.
 * @module
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { launchChromium } from './chromium.js';
import { DemoPage } from './demo-page.js';
import { serveBuiltDemo, type ServedDemo } from './demo-server.js';
import { ModelServer } from './model-server.js';

/** The key the tests type into the settings: it must reach the server and nothing else. */
export const TEST_API_KEY = 'sk-e2e-secret-4711';
export const TEST_MODEL = 'e2e-model';

export interface E2eFixture {
  readonly server: ModelServer;
  /** A new page in a fresh context, with the endpoint set to the local server unless `offline`. */
  open(options?: { offline?: boolean }): Promise<DemoPage>;
}

/** Registers the file's setup and teardown; use the fixture inside tests. */
export function useDemo(): E2eFixture {
  let demo: ServedDemo | undefined;
  let browser: Browser | undefined;
  let server: ModelServer | undefined;
  const pages: DemoPage[] = [];
  beforeAll(async () => {
    [demo, browser, server] = await Promise.all([serveBuiltDemo(), launchChromium(), ModelServer.start()]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all(pages.map((p) => p.close().catch(() => undefined)));
    await browser?.close();
    await Promise.all([demo?.close(), server?.close()]);
  });
  return {
    get server() {
      return server!;
    },
    async open({ offline = false } = {}) {
      const page = await DemoPage.open(browser!, demo!.origin);
      pages.push(page);
      if (!offline)
        await page.useEndpoint({ baseURL: server!.baseURL, apiKey: TEST_API_KEY, model: TEST_MODEL });
      return page;
    },
  };
}
