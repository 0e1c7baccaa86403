/**
 * The browser of the end-to-end tests: the one the browser harness finds (`CHROMIUM_PATH`, a
 * system Chromium or Chrome, else the Chromium of the `@sparticuz/chromium` dev dependency).
 * None found is an error naming what was tried: the tests fail, they are not skipped.
 * @module
 */
import { chromium, type Browser } from 'playwright-core';
import { resolveChromium } from '../../browser/harness.js';

/** Starts headless Chromium; each test opens its own context (its own storage) in it. */
export async function launchChromium(): Promise<Browser> {
  const found = await resolveChromium();
  return chromium.launch({
    executablePath: found.executablePath,
    args: [...found.args],
    ...(found.env && { env: found.env }),
  });
}
