/**
 * One profiled process of the turn-profile bench: three one-shot runs (setup, one turn, teardown)
 * of a side, as the peer bench's warm measure does, with V8's CPU profiler running during the
 * third turn only. Writes that profile to `--out` and prints `{ cpuMs }` (the turn's CPU, with
 * the profiler's own overhead in it) as one JSON line.
 *
 * Run: `node bench/.build/processes/profile-turn.js --side youyou --scenario tools-25 --base-url
 * http://127.0.0.1:PORT/v1 --out turn.cpuprofile`
 * @module
 */
import { writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { parseArgs } from 'node:util';
import type { CreateClient } from './client.js';
import { checkTurn, scenarioOf } from './script.js';

const { values } = parseArgs({
  options: {
    side: { type: 'string' },
    scenario: { type: 'string' },
    'base-url': { type: 'string' },
    out: { type: 'string' },
    'interval-us': { type: 'string', default: '100' },
  },
});
const scenario = scenarioOf(values.scenario ?? '');
const { side, out } = values;
if ((side !== 'raw' && side !== 'youyou') || !scenario || !values['base-url'] || !out) {
  throw new Error(
    'usage: profile-turn.js --side raw|youyou --scenario <kind>-<size> --base-url <url> --out <file>',
  );
}
const module: { createClient: CreateClient } =
  side === 'raw' ? await import('./raw-client.js') : await import('./youyou-client.js');
const client = module.createClient({ baseURL: values['base-url'], scenario, conversation: false });

const inspector = new Session();
inspector.connect();
await inspector.post('Profiler.enable');
await inspector.post('Profiler.setSamplingInterval', { interval: Number(values['interval-us']) });

let cpuMs = 0;
for (let run = 1; run <= 3; run++) {
  await client.setup();
  if (run === 3) await inspector.post('Profiler.start');
  const cpu = process.cpuUsage();
  const outcome = await client.turn('Go.');
  const used = process.cpuUsage(cpu);
  if (run === 3) {
    const { profile } = await inspector.post('Profiler.stop');
    await writeFile(out, JSON.stringify(profile));
    cpuMs = (used.user + used.system) / 1000;
  }
  checkTurn(scenario, outcome);
  await client.teardown();
}
// Exit at once: open keep-alive sockets would otherwise hold the process.
process.stdout.write(`${JSON.stringify({ cpuMs })}\n`, () => process.exit(0));
