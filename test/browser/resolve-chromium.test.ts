/**
 * How the browser harness finds Chromium: `CHROMIUM_PATH` first, then a system browser, then the
 * one shipped in the dev dependency `@sparticuz/chromium` — which must start on this machine with
 * no system package, so it is launched here on every run, whatever the other tests use.
 */
import { describe, expect, it } from 'vitest';
import { chromium } from 'playwright-core';
import { resolveChromium, SYSTEM_CHROMIUM_PATHS } from './harness.js';

describe('resolveChromium', () => {
  it('takes CHROMIUM_PATH as it is, and fails loudly when nothing is there', async () => {
    const here = process.execPath;
    expect(await resolveChromium({ CHROMIUM_PATH: here })).toMatchObject({
      source: 'CHROMIUM_PATH',
      executablePath: here,
    });
    await expect(resolveChromium({ CHROMIUM_PATH: '/nonexistent/chromium' })).rejects.toThrow(
      'CHROMIUM_PATH is set to /nonexistent/chromium, but there is no file there',
    );
  });

  it('prefers a system browser, unless YOUYOU_CHROMIUM=bundled', async () => {
    const found = await resolveChromium({});
    if (found.source === 'system') expect(SYSTEM_CHROMIUM_PATHS).toContain(found.executablePath);
    else expect(found.source).toBe('bundled');
    expect((await resolveChromium({ YOUYOU_CHROMIUM: 'bundled' })).source).toBe('bundled');
  });

  it(
    'starts the bundled Chromium with its own libraries, and it runs a page with IndexedDB',
    { timeout: 60_000 },
    async () => {
      const bundled = await resolveChromium({ YOUYOU_CHROMIUM: 'bundled' });
      expect(bundled.env?.['LD_LIBRARY_PATH']).toMatch(/al2023\/lib/);
      const browser = await chromium.launch({
        executablePath: bundled.executablePath,
        args: [...bundled.args],
        ...(bundled.env && { env: bundled.env }),
      });
      try {
        const page = await browser.newPage();
        expect(
          await page.evaluate(() => [typeof indexedDB, navigator.userAgent.includes('HeadlessChrome')]),
        ).toEqual(['object', true]);
      } finally {
        await browser.close();
      }
    },
  );
});
