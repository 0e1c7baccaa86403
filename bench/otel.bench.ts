/**
 * Otel bench: what `youyou-agent/otel` costs a turn. The library side of the peer bench runs
 * `TEXT 5000` and `TOOLS 25` without the plugin, with `otelPlugin()` on the API's no-op tracer
 * (no SDK registered), and on a real `BasicTracerProvider` whose spans go to an in-memory
 * exporter. Each measurement is a fresh process (three one-shot runs, the third, warm one timed:
 * CPU of the turn); the three modes alternate within each round, starting with a different one
 * each round, and the ratios are the median of per-round ratios to the run without the plugin.
 *
 * Options: `--rounds N` (default 8), `--scenarios text-5000,tools-25`, `--no-build`.
 * @module
 */
import { cpus, loadavg } from 'node:os';
import { buildBench } from './peer/build.js';
import type { OtelMode } from './peer/processes/client.js';
import type { ChildReport } from './peer/processes/turns.js';
import { countOption } from './peer/settings.js';
import { runProcess, startModelServer } from './peer/spawn.js';
import { median, pairedRatios, quantile } from './peer/stats.js';
import type { BenchOptions, BenchResult } from './types.js';

const MODES: readonly OtelMode[] = ['none', 'noop', 'sdk'];

/** Runs the otel bench. */
export default async function run(options: BenchOptions): Promise<BenchResult> {
  const rounds = countOption(options, 'rounds', 8, 1);
  const scenarios =
    typeof options.scenarios === 'string'
      ? options.scenarios.split(',').map((name) => name.trim())
      : ['text-5000', 'tools-25'];
  if (options['no-build'] === undefined) await buildBench();
  const loadBefore = loadavg()[0]!;
  const server = await startModelServer();
  const rows: BenchResult['rows'] = [];
  try {
    for (const scenario of scenarios) {
      const cpu: Record<OtelMode, number[]> = { none: [], noop: [], sdk: [] };
      for (let round = 0; round < rounds; round++) {
        for (let i = 0; i < MODES.length; i++) {
          const mode = MODES[(round + i) % MODES.length]!;
          const args = [
            '--side',
            'youyou',
            '--scenario',
            scenario,
            '--base-url',
            server.baseURL,
            '--otel',
            mode,
          ];
          const report = await runProcess<ChildReport>('turns', [...args, '--repeat', '3']);
          cpu[mode].push(report.runs!.at(-1)!.turn.cpuMs);
        }
        process.stderr.write(`  otel: ${scenario}, round ${round + 1}/${rounds}\n`);
      }
      for (const mode of MODES) {
        const ratios = pairedRatios(cpu[mode], cpu.none);
        rows.push({
          scenario,
          tracing: {
            none: 'no plugin',
            noop: 'otelPlugin, no-op tracer',
            sdk: 'otelPlugin, SDK + in-memory exporter',
          }[mode],
          'turn CPU ms (median)': median(cpu[mode]).toFixed(2),
          'vs no plugin (median of rounds)':
            mode === 'none' ? '' : `${((median(ratios) - 1) * 100).toFixed(1)} %`,
          quartiles:
            mode === 'none'
              ? ''
              : `${((quantile(ratios, 0.25) - 1) * 100).toFixed(1)} … ${((quantile(ratios, 0.75) - 1) * 100).toFixed(1)} %`,
        });
      }
    }
  } finally {
    server.stop();
  }
  return {
    title: `What youyou-agent/otel costs a warm turn (CPU, ${rounds} rounds of fresh processes, the modes alternating)`,
    rows,
    notes: [
      `load average ${loadBefore.toFixed(2)} before, ${loadavg()[0]!.toFixed(2)} after, on ${cpus().length} cores`,
    ],
  };
}
