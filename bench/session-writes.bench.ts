/**
 * The write path of `IndexedDbSessionStorage` in Chromium: a burst of 1,000 saves called in one
 * tick and 1,000 saves awaited one by one, each without and with a writer epoch, plus the cost of
 * one draft checkpoint. Each scenario runs `--runs` times (default 5); the table shows the median
 * and the range.
 * @module
 */
import { fileURLToPath } from 'node:url';
import { openInChromium } from '../test/browser/harness.js';
import { countOption } from './peer/settings.js';
import { median } from './peer/stats.js';
import type { BenchOptions, BenchResult } from './types.js';

const EVENTS = 1_000;
const DRAFTS = 200;
const PAGE_ENTRY = fileURLToPath(new URL('./session-writes.page.ts', import.meta.url));

/** Runs the scenarios, interleaved run by run so that a busy moment of the machine hits all alike. */
export default async function run(options: BenchOptions = {}): Promise<BenchResult> {
  const runs = countOption(options, 'runs', 5, 1);
  const browser = await openInChromium(PAGE_ENTRY);
  try {
    const page = await browser.open();
    const scenarios: [name: string, fn: string, count: number, ...args: unknown[]][] = [
      [`burst of ${EVENTS} saves, no epoch`, 'burst', EVENTS, false],
      [`burst of ${EVENTS} saves, with writerEpoch`, 'burst', EVENTS, true],
      [`${EVENTS} saves one by one, no epoch`, 'oneByOne', EVENTS, false],
      [`${EVENTS} saves one by one, with writerEpoch`, 'oneByOne', EVENTS, true],
      [`${DRAFTS} saveDraft one by one`, 'drafts', DRAFTS],
    ];
    const times = scenarios.map(() => [] as number[]);
    for (let r = 0; r < runs; r++) {
      for (const [i, [, fn, count, ...args]] of scenarios.entries()) {
        times[i]!.push(await page.call<number>(fn, `bench-writes-${i}`, count, ...args));
      }
    }
    return {
      title: `IndexedDbSessionStorage write path in Chromium (median of ${runs} runs)`,
      rows: scenarios.map(([name, , count], i): Record<string, string | number> => {
        const t = times[i]!;
        return {
          scenario: name,
          'median (ms)': +median(t).toFixed(1),
          range: `${Math.min(...t).toFixed(0)}–${Math.max(...t).toFixed(0)}`,
          'per call (ms)': +(median(t) / count).toFixed(3),
        };
      }),
      notes: ['time: measured in the page; opening the database is excluded'],
    };
  } finally {
    await browser.close();
  }
}
