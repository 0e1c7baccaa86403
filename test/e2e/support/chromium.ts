/**
 * The browser of the end-to-end tests: the one the browser harness finds (`CHROMIUM_PATH`, a
 * system Chromium or Chrome, else the Chromium of the `@sparticuz/chromium` dev dependency).
 * None found is an error naming what was tried: the tests fail, they are not skipped.
 * @module
 */
import { chromium, type Browser } from 'playwright-core';
import { resolveChromium } from '../../browser/harness.js';

/**
 * Flags the bundled Chromium brings for serverless hosts that break what these tests need:
 * in one process, contexts share their storage and a popup (the inspector's window) crashes it.
 */
const UNWANTED = new Set(['--single-process']);

/** Starts headless Chromium; each test opens its own context (its own storage) in it. */
export async function launchChromium(): Promise<Browser> {
  const found = await resolveChromium();
  return chromium.launch({
    executablePath: found.executablePath,
    args: found.args.filter((arg) => !UNWANTED.has(arg)),
    ...(found.env && { env: found.env }),
  });
}
