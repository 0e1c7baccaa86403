/**
 * The browser of the end-to-end tests, found in one place. Today: Debian's Chromium at
 * `/usr/bin/chromium` (or `CHROMIUM_PATH`). None found is an error naming the fix: the tests that
 * need it fail, they are not skipped.
 * @module
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

const SYSTEM_CHROMIUM = '/usr/bin/chromium';

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
  '--disable-sync',
];

/** Starts headless Chromium; each test opens its own context (its own storage) in it. */
export async function launchChromium(): Promise<Browser> {
  const executablePath = process.env['CHROMIUM_PATH'] || SYSTEM_CHROMIUM;
  if (!existsSync(executablePath)) {
    throw new Error(
      `Chromium is required for the end-to-end tests but was not found at ${executablePath}: set CHROMIUM_PATH or install it with 'apt-get install -y chromium'`,
    );
  }
  return chromium.launch({ executablePath, args: ARGS });
}
