/**
 * The same invariants over real HTTP: the real `OpenAIProvider` and `openai` SDK against a local
 * server on 127.0.0.1 that plays stalls, resets before and after output, 429 storms with
 * `Retry-After: 0`, 5xx, refused requests, error objects in the stream and malformed chunks.
 * Also: the history on the wire always answers every call, and no server response is left open
 * after shutdown.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { scenario } from './arbitraries.js';
import { ChatCompletionsServer } from './http/imports.js';
import { httpTransport } from './http/transport.js';
import { runScenario } from './run-scenario.js';
import { propertyParameters, Tally } from './settings.js';

const tally = new Tally();
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => void unhandled.push(reason);
let server: ChatCompletionsServer;

beforeAll(async () => {
  process.on('unhandledRejection', onUnhandled);
  server = await ChatCompletionsServer.start();
});
afterAll(async () => {
  process.off('unhandledRejection', onUnhandled);
  await server.close();
  console.log(tally.summary('agent over real HTTP'));
});

// Memory extraction and compaction requests look like turns on the wire: both stay off here.
// Saves settle at once: a stall moves the run's clock on, which must not age a pending save.
const overHttp = fc.record({
  scenario: scenario.map((s) => ({
    ...s,
    checkpointInterval: null,
    contextWindow: 'large' as const,
    slowStorage: false,
  })),
  flavours: fc.array(fc.nat({ max: 5 }), { minLength: 1, maxLength: 6 }),
});

it('holds every invariant when the model answers over real HTTP with faults', async () => {
  await fc.assert(
    fc.asyncProperty(overHttp, async ({ scenario: s, flavours }) => {
      const before = unhandled.length;
      const { options, open } = httpTransport(server, flavours);
      tally.add(await runScenario(s, options));
      for (let i = 0; i < 50 && open.size > 0; i++) await new Promise((resolve) => setTimeout(resolve, 1));
      if (open.size > 0) throw new Error(`${open.size} server responses still open after shutdown`);
      await new Promise((resolve) => setTimeout(resolve, 0));
      if (unhandled.length > before) throw new Error(`unhandled rejection: ${String(unhandled[before])}`);
    }),
    propertyParameters('PROPERTY_HTTP_RUNS', 40),
  );
  expect(unhandled).toEqual([]);
}, 300_000);
