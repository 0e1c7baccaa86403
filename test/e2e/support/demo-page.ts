/**
 * The demo as a person uses it, for the end-to-end tests: open it, set the endpoint in the
 * settings dialog, type and send, press Stop, click in the sidebar; and read what the chat shows.
 * @module
 */
import { mkdir } from 'node:fs/promises';
import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';

/** What one chat row shows. */
export interface ShownItem {
  kind: string;
  id: string;
  status: string | null;
  /** The assistant's text, the user's text, the notice; for a tool: `name(arguments) → output`. */
  text: string;
}

const SCREENSHOTS = new URL('../../../test-results/', import.meta.url);

/** The window the tests use unless they ask for another: a desktop one. */
export const DESKTOP: BrowserContextOptions = { viewport: { width: 1280, height: 800 } };
/** A phone's window (an iPhone 12 to 15's CSS size), with touch and the viewport meta tag honoured. */
export const PHONE: BrowserContextOptions = {
  viewport: { width: 390, height: 844 },
  deviceScaleFactor: 2,
  isMobile: true,
  hasTouch: true,
};

/**
 * Stands in for the hosted Stately inspector: it says it is connected, as the real one does, and
 * keeps what the page sends it in `window.received`.
 */
const INSPECTOR_STUB = `<!doctype html><title>inspector stand-in</title><script>
window.received = [];
addEventListener('message', (event) => window.received.push(event.data));
opener.postMessage({ type: '@statelyai.connected' }, '*');
</script>`;

export class DemoPage {
  private constructor(
    readonly context: BrowserContext,
    readonly page: Page,
    readonly origin: string,
    /** Requests to anywhere but 127.0.0.1, refused before they left (the inspector's page aside). */
    readonly blocked: readonly string[],
  ) {}

  /**
   * Opens the demo in a fresh context (its own IndexedDB and localStorage); `prepare` runs on the
   * context before the first page loads (to add init scripts or listeners); `device` is the
   * window ({@link DESKTOP} unless given).
   */
  static async open(
    browser: Browser,
    origin: string,
    prepare?: (context: BrowserContext) => Promise<void>,
    device: BrowserContextOptions = DESKTOP,
  ): Promise<DemoPage> {
    const context = await browser.newContext(device);
    await prepare?.(context);
    const blocked: string[] = [];
    // Nothing leaves the machine: the inspector's page is a stand-in, anything else is refused.
    await context.route(
      (url) => url.hostname !== '127.0.0.1',
      async (route) => {
        const url = new URL(route.request().url());
        if (url.origin === 'https://stately.ai' && url.pathname === '/inspect') {
          await route.fulfill({ contentType: 'text/html', body: INSPECTOR_STUB });
        } else {
          blocked.push(url.href);
          await route.abort();
        }
      },
    );
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(String(error)));
    await page.goto(`${origin}/`);
    const demo = new DemoPage(context, page, origin, blocked);
    await demo.waitReady().catch((error: unknown) => {
      throw new Error(`the demo never became ready${errors.length ? `: ${errors.join('; ')}` : ''}`, {
        cause: error,
      });
    });
    return demo;
  }

  /** Waits until no operation runs and no turn streams. */
  async waitReady(): Promise<void> {
    await this.page.waitForSelector('body[data-phase="ready"]', { timeout: 15_000 });
  }

  /** Sets the endpoint through the settings dialog and waits for the rebuilt agent. */
  async useEndpoint(settings: { baseURL: string; apiKey: string; model: string }): Promise<void> {
    await this.page.click('.settings-button');
    await this.page.fill('dialog.settings input[name="baseURL"]', settings.baseURL);
    await this.page.fill('dialog.settings input[name="apiKey"]', settings.apiKey);
    await this.page.fill('dialog.settings input[name="model"]', settings.model);
    await this.page.click('dialog.settings button[type="submit"]');
    await this.page.waitForSelector(`.model-badge[data-offline="false"]`);
    await this.waitReady();
  }

  /** Types `text` and presses Enter. */
  async send(text: string): Promise<void> {
    await this.page.fill('.composer textarea', text);
    await this.page.press('.composer textarea', 'Enter');
  }

  /** Sends `text` and waits until its turn has ended (its usage line is shown). */
  async sendAndWait(text: string): Promise<void> {
    const before = await this.page.locator('.turn-summary').count();
    await this.send(text);
    await this.page.waitForFunction((n) => document.querySelectorAll('.turn-summary').length > n, before, {
      timeout: 15_000,
    });
    await this.waitReady();
  }

  /** The chat's rows, as shown. */
  items(): Promise<ShownItem[]> {
    return this.page.$$eval('.chat [data-kind]', (rows) =>
      rows.map((row) => {
        const el = row as HTMLElement;
        const kind = el.dataset['kind'] ?? '';
        const text =
          kind === 'tool'
            ? `${el.querySelector('.tool-name')?.textContent}(${el.querySelector('.tool-arguments')?.textContent}) \u2192 ${el.querySelector('.tool-output')?.textContent}`
            : kind === 'assistant'
              ? (el.querySelector('.text')?.textContent ?? '')
              : (el.textContent ?? '');
        return { kind, id: el.dataset['id'] ?? '', status: el.dataset['status'] ?? null, text };
      }),
    );
  }

  /** The titles in the sidebar, top to bottom. */
  sessionTitles(): Promise<string[]> {
    return this.page.$$eval('.sessions .session-title', (titles) => titles.map((t) => t.textContent ?? ''));
  }

  /** Every value of every store of the demo's IndexedDB database, as JSON text. */
  storedText(): Promise<string> {
    return this.page.evaluate(async () => {
      const db = await new Promise<IDBDatabase>((resolve, reject) => {
        const open = indexedDB.open('youyou-demo');
        open.onsuccess = () => resolve(open.result);
        open.onerror = () => reject(open.error);
      });
      const dump: unknown[] = [];
      for (const name of Array.from(db.objectStoreNames)) {
        const all = db.transaction(name).objectStore(name).getAll();
        dump.push(await new Promise((resolve) => (all.onsuccess = () => resolve(all.result))));
      }
      db.close();
      return JSON.stringify(dump);
    });
  }

  /** Another tab of the same browser context (same origin, IndexedDB and locks), with the demo ready. */
  async openTab(): Promise<DemoPage> {
    const page = await this.context.newPage();
    await page.goto(`${this.origin}/`);
    const tab = new DemoPage(this.context, page, this.origin, this.blocked);
    await tab.waitReady();
    return tab;
  }

  /** Reloads the page and waits for the demo. */
  async reload(): Promise<void> {
    await this.page.reload();
    await this.waitReady();
  }

  /** Saves a screenshot of the whole window as `test-results/<name>.png`. */
  async screenshot(name: string): Promise<void> {
    await mkdir(SCREENSHOTS, { recursive: true });
    await this.page.screenshot({ path: new URL(`${name}.png`, SCREENSHOTS).pathname });
  }

  close(): Promise<void> {
    return this.context.close();
  }
}
