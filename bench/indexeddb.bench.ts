/**
 * IndexedDB storage benchmark, in Chromium: saving 10,000 events one by one, the same in bursts
 * of 100, and loading them back, as events per second, with the page's peak JS heap during each
 * scenario (sampled through the DevTools protocol, so the page's own work is not disturbed).
 * @module
 */
import { fileURLToPath } from 'node:url';
import type { CDPSession } from 'playwright-core';
import { openInChromium } from '../test/browser/harness.js';
import type { BenchResult } from './types.js';

const EVENTS = 10_000;
const BURST = 100;
const PAGE_ENTRY = fileURLToPath(new URL('./indexeddb.page.ts', import.meta.url));

/** Samples the page's used JS heap every ~50 ms (rarely enough not to slow the page much) until stopped; returns the peak in bytes. */
function samplePeakHeap(cdp: CDPSession): () => Promise<number> {
  let peak = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      const { usedSize } = await cdp.send('Runtime.getHeapUsage');
      peak = Math.max(peak, usedSize);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  return async () => {
    running = false;
    await loop;
    return peak;
  };
}

/** Runs the scenarios and reports one row each. */
export default async function run(): Promise<BenchResult> {
  const browser = await openInChromium(PAGE_ENTRY);
  try {
    const page = await browser.open();
    const cdp = await page.cdp();
    await cdp.send('Runtime.enable');
    const rows: BenchResult['rows'] = [];
    const scenario = async (name: string, fn: string, ...args: unknown[]) => {
      await cdp.send('HeapProfiler.collectGarbage');
      const stop = samplePeakHeap(cdp);
      const ms = await page.call<number>(fn, ...args);
      const peak = await stop();
      rows.push({
        scenario: name,
        events: EVENTS,
        'time (ms)': Math.round(ms),
        'events/s': Math.round((EVENTS / ms) * 1000),
        'peak JS heap (MB)': +(peak / 2 ** 20).toFixed(1),
      });
    };
    await scenario('save one by one (await each)', 'saveOneByOne', 'bench-one', EVENTS);
    await scenario('load back', 'loadAll', 'bench-one', EVENTS);
    await scenario(`save in bursts of ${BURST}`, 'saveInBursts', 'bench-burst', EVENTS, BURST);
    await scenario('load back (burst-written)', 'loadAll', 'bench-burst', EVENTS);
    await page.call('drop', 'bench-one');
    await page.call('drop', 'bench-burst');
    return {
      title: `IndexedDbSessionStorage in Chromium (${EVENTS.toLocaleString('en')} events, disk profile)`,
      rows,
      notes: [
        'time: measured in the page; opening the database is excluded',
        "peak JS heap: the page's used heap sampled every ~50 ms over CDP, after a forced GC",
      ],
    };
  } finally {
    await browser.close();
  }
}
