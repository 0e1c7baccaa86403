/**
 * Turn-profile bench: where the warm turn of each peer scenario spends its CPU, for the raw
 * `openai` SDK loop and for this library side by side, so the difference between the two reads
 * part by part (xstate, zod, this library by source folder, Node's fetch, the garbage collector…).
 *
 * Each process does what the peer bench's warm measure does (three one-shot runs, the third
 * timed) with V8's sampling profiler on during the third turn only (`turns.js --profile`); the table is the mean over the processes, in ms of self
 * time per turn. The profiler adds its own overhead, so the totals run above the peer bench's
 * figures: read the parts against each other, and the peer bench for ratios.
 *
 * Options: `--processes N` (default 8 per side and scenario), `--scenarios tools-25,par-16`
 * (default `tools-25,par-16,text-5000`), `--top N` parts per scenario (default 12),
 * `--no-build` (reuse `bench/.build/`).
 * @module
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildBench } from './peer/build.js';
import { partTimes, type CpuProfile, type PartTimes } from './peer/profile-parts.js';
import { countOption } from './peer/settings.js';
import type { ChildReport } from './peer/processes/turns.js';
import { runProcess, startModelServer } from './peer/spawn.js';
import { median } from './peer/stats.js';
import type { BenchOptions, BenchResult } from './types.js';

const SIDES = ['raw', 'youyou'] as const;

/** Runs the turn-profile bench. */
export default async function run(options: BenchOptions): Promise<BenchResult> {
  const processes = countOption(options, 'processes', 8, 1);
  const top = countOption(options, 'top', 12, 1);
  const scenarios =
    typeof options.scenarios === 'string'
      ? options.scenarios.split(',').map((name) => name.trim())
      : ['tools-25', 'par-16', 'text-5000'];
  if (options['no-build'] === undefined) await buildBench();
  const server = await startModelServer();
  const dir = await mkdtemp(join(tmpdir(), 'youyou-turn-profile-'));
  const rows: BenchResult['rows'] = [];
  try {
    for (const scenario of scenarios) {
      const sums = { raw: new Map() as PartTimes, youyou: new Map() as PartTimes };
      const cpu = { raw: [] as number[], youyou: [] as number[] };
      for (let i = 0; i < processes; i++) {
        for (const side of SIDES) {
          const out = join(dir, `${scenario}-${side}-${i}.cpuprofile`);
          const args = ['--side', side, '--scenario', scenario, '--base-url', server.baseURL];
          const report = await runProcess<ChildReport>('turns', [...args, '--repeat', '3', '--profile', out]);
          cpu[side].push(report.runs!.at(-1)!.turn.cpuMs);
          const profile = JSON.parse(await readFile(out, 'utf8')) as CpuProfile;
          for (const [part, ms] of partTimes(profile)) sums[side].set(part, (sums[side].get(part) ?? 0) + ms);
        }
        process.stderr.write(`  turn profile: ${scenario}, process ${i + 1}/${processes}\n`);
      }
      const parts = [...new Set([...sums.raw.keys(), ...sums.youyou.keys()])].map((part) => {
        const raw = (sums.raw.get(part) ?? 0) / processes;
        const youyou = (sums.youyou.get(part) ?? 0) / processes;
        return { part, raw, youyou };
      });
      parts.sort((a, b) => Math.max(b.raw, b.youyou) - Math.max(a.raw, a.youyou));
      const shown = parts.slice(0, top);
      const rest = parts.slice(top);
      const format = (ms: number) => (ms === 0 ? '' : ms.toFixed(2));
      rows.push({
        scenario,
        part: 'CPU of the turn (median, profiler on)',
        'raw ms': median(cpu.raw).toFixed(2),
        'youyou ms': median(cpu.youyou).toFixed(2),
        'youyou − raw': (median(cpu.youyou) - median(cpu.raw)).toFixed(2),
      });
      for (const { part, raw, youyou } of shown) {
        rows.push({
          scenario,
          part,
          'raw ms': format(raw),
          'youyou ms': format(youyou),
          'youyou − raw': (youyou - raw).toFixed(2),
        });
      }
      if (rest.length > 0) {
        const raw = rest.reduce((sum, part) => sum + part.raw, 0);
        const youyou = rest.reduce((sum, part) => sum + part.youyou, 0);
        rows.push({
          scenario,
          part: `${rest.length} other parts`,
          'raw ms': format(raw),
          'youyou ms': format(youyou),
          'youyou − raw': (youyou - raw).toFixed(2),
        });
      }
    }
  } finally {
    server.stop();
    await rm(dir, { recursive: true, force: true });
  }
  return {
    title: `Where a warm turn's CPU goes (self time per turn, mean of ${processes} processes per side; the third one-shot run, profiler on)`,
    rows,
    notes: [
      'parts: dependencies by package; this library by source folder (through the source maps of the built package); Node fetch = undici; idle time left out',
      'the profiler samples every 100 µs and adds its own overhead: compare parts with each other, and take ratios from `npm run bench -- peer`',
    ],
  };
}
