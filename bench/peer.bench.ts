/**
 * Peer bench: this library against the raw `openai` SDK loop doing the same work, on a local
 * OpenAI-compatible SSE server in its own process (127.0.0.1 only). Scenarios: `TEXT 5000` (one
 * answer of 5,000 deltas), `TOOLS 25` (25 rounds of one tool call, then an answer), `PAR 16` (16
 * parallel tool calls, then an answer), `LONG 500` (one session of 500 short turns), the import
 * time of the root entry against `openai`'s, and the extra CPU of watching `session.conversation`
 * (when the library has it).
 *
 * The library is built first and imported as an installed package (see `peer/build.ts`); every
 * measurement is a fresh `node` process, the two sides alternating (see `peer/measure.ts`).
 * Prints one table and writes `bench/results/latest.json`. Options: see `peer/settings.ts`.
 * @module
 */
import { execFileSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { buildBench } from './peer/build.js';
import { measure } from './peer/measure.js';
import { readSettings } from './peer/settings.js';
import { startModelServer } from './peer/spawn.js';
import { summarise, table } from './peer/summary.js';
import type { BenchOptions, BenchResult } from './types.js';

const RESULTS = fileURLToPath(new URL('./results/', import.meta.url));

/** The commit measured, and whether `src/` or `machines/` (what is measured) had uncommitted changes. */
function revision(): { commit: string; uncommittedChanges: boolean } | null {
  try {
    const git = (...args: string[]) => execFileSync('git', args, { encoding: 'utf8' }).trim();
    return {
      commit: git('rev-parse', 'HEAD'),
      uncommittedChanges: git('status', '--porcelain', '--', 'src', 'machines') !== '',
    };
  } catch {
    return null;
  }
}

/** Runs the peer bench. */
export default async function run(options: BenchOptions): Promise<BenchResult> {
  const settings = readSettings(options);
  if (settings.build) await buildBench();
  // Other processes share the CPU on a busy machine: the load is recorded next to the figures.
  const loadBefore = loadavg()[0]!;
  const server = await startModelServer();
  let measurements;
  try {
    measurements = await measure(server.baseURL, settings);
  } finally {
    server.stop();
  }
  const load = { before: loadBefore, after: loadavg()[0]!, cpus: cpus().length };
  const summary = summarise(measurements, settings.longTurns);
  await mkdir(RESULTS, { recursive: true });
  const record = {
    date: new Date().toISOString(),
    revision: revision(),
    node: process.version,
    cpu: `${cpus().length} × ${cpus()[0]?.model ?? 'unknown'}`,
    loadAverage1m: load,
    settings,
    summary,
    measurements,
  };
  await writeFile(`${RESULTS}latest.json`, `${JSON.stringify(record, null, 2)}\n`);
  return table(summary, { ...settings, load });
}
