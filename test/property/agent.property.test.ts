/**
 * The agent's invariants under random scripts and random user actions, over the scripted model:
 * sequence 1..n per Session object; one terminal event per turn, last, agreeing with
 * `turn.result`; tool starts end; `turn_end` once per turn; every call answered once, live, on
 * the wire and after resume; resumed messages equal the live ones; turns nothing interrupted end
 * as their script implies; no unhandled rejection; nothing left running after shutdown.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { scenario } from './arbitraries.js';
import { runScenario } from './run-scenario.js';
import { propertyParameters, Tally } from './settings.js';

const tally = new Tally();
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => void unhandled.push(reason);

beforeAll(() => void process.on('unhandledRejection', onUnhandled));
afterAll(() => {
  process.off('unhandledRejection', onUnhandled);
  console.log(tally.summary('agent over the scripted model'));
});

it('holds every invariant under random scripts, cancels, closes, shutdowns and resumes', async () => {
  await fc.assert(
    fc.asyncProperty(scenario, async (s) => {
      const before = unhandled.length;
      tally.add(await runScenario(s));
      // A rejection nobody handled surfaces a macrotask later at the latest.
      await new Promise((resolve) => setTimeout(resolve, 0));
      if (unhandled.length > before) throw new Error(`unhandled rejection: ${String(unhandled[before])}`);
    }),
    propertyParameters('PROPERTY_RUNS', 500),
  );
  expect(unhandled).toEqual([]);
}, 300_000);
