/**
 * One Chromium per browser test file: started before the file's tests, closed after them. A
 * browser that cannot start fails every test that uses it, with the start-up error (none is
 * skipped).
 * @module
 */
import { afterAll, beforeAll } from 'vitest';
import { openInChromium, type BrowserHarness, type HarnessOptions, type HarnessPage } from './harness.js';

/** What a test file gets: new pages, and the first page when asked for one up front. */
export interface ChromiumPages {
  /** A new tab (on the shared origin unless the options ask for one of its own). */
  open(...options: Parameters<BrowserHarness['open']>): Promise<HarnessPage>;
  /** The tab opened before the tests (with `{ firstPage: true }`). */
  page(): HarnessPage;
}

/**
 * Registers the file's browser start and stop; `entry` is the page bundle's entry module (bundled
 * and served as `options` say, see {@link HarnessOptions}).
 */
export function useChromium(
  entry: string,
  options: { firstPage?: boolean } & HarnessOptions = {},
): ChromiumPages {
  let browser: BrowserHarness | undefined;
  let first: HarnessPage | undefined;
  let startError: unknown;
  beforeAll(async () => {
    try {
      browser = await openInChromium(entry, options);
      if (options.firstPage) first = await browser.open();
    } catch (error) {
      startError = error;
    }
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
  });
  const failed = () => (startError instanceof Error ? startError : new Error(String(startError)));
  return {
    open: (...openOptions) => {
      if (!browser) throw failed();
      return browser.open(...openOptions);
    },
    page: () => {
      if (!first) throw failed();
      return first;
    },
  };
}
