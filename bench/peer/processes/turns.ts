/**
 * One fresh process of the peer bench: imports one side (raw SDK or library) before anything is
 * timed, runs a scenario, and prints one JSON line (a {@link ChildReport}) on stdout.
 *
 * - `text`, `tools`, `par`: `--repeat` one-shot runs in a row (setup, one turn, teardown); run 1
 *   is the cold one, run 3 the warm one.
 * - `long`: one setup, then `size` turns in the same session, each timed. With `--warmup N`, a
 *   first session of N untimed turns runs before it, so that the timed session's early turns
 *   run warm code (JIT) and differ from its late turns only by the length of the history.
 * - `--profile <file>` (one-shot scenarios): V8's CPU profile of the last run's turn, for
 *   `npm run bench -- turn-profile`.
 *
 * Times are CPU ms from `process.cpuUsage()` (user + system, every thread of the process: GC and
 * JIT threads included), with the wall time beside them.
 *
 * Run: `node bench/.build/processes/turns.js --side raw --scenario text-5000 --base-url http://127.0.0.1:PORT/v1`
 * @module
 */
import { writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { parseArgs } from 'node:util';
import type { BenchClient, CreateClient } from './client.js';
import { checkTurn, scenarioOf } from './script.js';

/** CPU and wall time of one timed phase, in ms. */
export interface Timing {
  cpuMs: number;
  wallMs: number;
}

/** One one-shot run: its three phases. */
export interface RunTiming {
  setup: Timing;
  turn: Timing;
  teardown: Timing;
}

/** What a child prints. */
export interface ChildReport {
  side: 'raw' | 'youyou';
  scenario: string;
  /** Wall ms of importing the side's modules (not timed as part of any turn). */
  importMs: number;
  /** Only on the library side: the file `youyou-agent` resolved to. */
  resolvedPackage?: string;
  /** Only on the library side: whether `Session.prototype` has `conversation`. */
  hasConversation?: boolean;
  /** One-shot scenarios: each run in order. */
  runs?: RunTiming[];
  /** `long`: each turn in order. */
  turns?: Timing[];
}

const { values } = parseArgs({
  options: {
    side: { type: 'string' },
    scenario: { type: 'string' },
    'base-url': { type: 'string' },
    repeat: { type: 'string', default: '3' },
    warmup: { type: 'string', default: '0' },
    conversation: { type: 'boolean', default: false },
    // Library side: register youyou-agent/otel's plugin, on the no-op tracer or on the SDK.
    otel: { type: 'string', default: 'none' },
    // One-shot scenarios: V8's CPU profile of the last run's turn, written to this file.
    profile: { type: 'string' },
  },
});
const side = values.side;
const scenario = scenarioOf(values.scenario ?? '');
if ((side !== 'raw' && side !== 'youyou') || !scenario || !values['base-url']) {
  throw new Error('usage: turns.js --side raw|youyou --scenario <kind>-<size> --base-url <url> [--repeat N]');
}

const importStart = performance.now();
const module: {
  createClient: CreateClient;
  hasConversation?: () => boolean;
  resolvedPackage?: () => string;
} = side === 'raw' ? await import('./raw-client.js') : await import('./youyou-client.js');
const importMs = performance.now() - importStart;

const otel = values.otel;
if (otel !== 'none' && otel !== 'noop' && otel !== 'sdk') throw new Error('--otel is none, noop or sdk');
const client = module.createClient({
  baseURL: values['base-url'],
  scenario,
  conversation: values.conversation,
  otel,
});

/** Runs `phase` and returns what it cost. */
async function timed<T>(phase: () => Promise<T>): Promise<[T, Timing]> {
  const wall = performance.now();
  const cpu = process.cpuUsage();
  const value = await phase();
  const used = process.cpuUsage(cpu);
  return [value, { cpuMs: (used.user + used.system) / 1000, wallMs: performance.now() - wall }];
}

async function turn(bench: BenchClient, text: string): Promise<Timing> {
  const [outcome, timing] = await timed(() => bench.turn(text));
  checkTurn(scenario!, outcome);
  return timing;
}

/** Runs `phase` with V8's sampling profiler on (every 100 µs), and writes the profile to `file`. */
async function profiled<T>(file: string, phase: () => Promise<T>): Promise<T> {
  const inspector = new Session();
  inspector.connect();
  await inspector.post('Profiler.enable');
  await inspector.post('Profiler.setSamplingInterval', { interval: 100 });
  await inspector.post('Profiler.start');
  try {
    return await phase();
  } finally {
    const { profile } = await inspector.post('Profiler.stop');
    await writeFile(file, JSON.stringify(profile));
    inspector.disconnect();
  }
}

const report: ChildReport = { side, scenario: values.scenario!, importMs };
if (scenario.kind === 'long') {
  const warmup = Number(values.warmup);
  if (warmup > 0) {
    await client.setup();
    for (let i = 1; i <= warmup; i++) await turn(client, `Warm-up turn ${i}: say something.`);
    await client.teardown();
  }
  await client.setup();
  report.turns = [];
  for (let i = 1; i <= scenario.size; i++) report.turns.push(await turn(client, `Turn ${i}: say something.`));
  await client.teardown();
} else {
  report.runs = [];
  const repeat = Number(values.repeat);
  for (let i = 0; i < repeat; i++) {
    const [, setup] = await timed(() => client.setup());
    const { profile } = values;
    const turnTiming =
      profile !== undefined && i === repeat - 1
        ? await profiled(profile, () => turn(client, 'Go.'))
        : await turn(client, 'Go.');
    const [, teardown] = await timed(() => client.teardown());
    report.runs.push({ setup, turn: turnTiming, teardown });
  }
}
if (module.resolvedPackage) report.resolvedPackage = module.resolvedPackage();
if (module.hasConversation) report.hasConversation = module.hasConversation();
// Exit at once: open keep-alive sockets would otherwise hold the process.
process.stdout.write(`${JSON.stringify(report)}\n`, () => process.exit(0));
