/**
 * How the property suites run: a fixed seed (so CI is reproducible) and run counts, each
 * overridable from the environment, and the summary line each property prints.
 *
 * - `PROPERTY_SEED`: the seed (default below). A failure report prints the seed and the path of
 *   the shrunk counterexample; rerun with that seed to replay it.
 * - `PROPERTY_RUNS`: runs of the scripted-model property (default 500).
 * - `PROPERTY_HTTP_RUNS`: runs of the real-HTTP property (default 40).
 * - `PROPERTY_PATH`: the `path` of a failure report; with its seed, replays just that
 *   counterexample (run the one test file it came from).
 * @module
 */
import type fc from 'fast-check';

const DEFAULT_SEED = 20_260_112;

function intFromEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value)) throw new Error(`${name} must be an integer, got '${raw}'`);
  return value;
}

export const PROPERTY_SEED = intFromEnv('PROPERTY_SEED', DEFAULT_SEED);

/** fast-check parameters for `numRuns` runs (from `envName` when set). */
export function propertyParameters<T>(envName: string, numRuns: number): fc.Parameters<T> {
  return {
    seed: PROPERTY_SEED,
    numRuns: intFromEnv(envName, numRuns),
    // A run that hangs fails (and shrinks) instead of stalling the suite. The failure report
    // names the seed, the path and the shrunk counterexample.
    timeout: 10_000,
    ...(process.env['PROPERTY_PATH'] && { path: process.env['PROPERTY_PATH'] }),
  };
}

/** What one run reports. */
export interface RunCounts {
  turns: number;
  events: number;
  outcomes: Record<'completed' | 'cancelled' | 'failed', number>;
  interrupts: number;
  predicted: number;
  compactions: number;
}

/** Runs, turns and events one property checked. */
export class Tally {
  runs = 0;
  readonly total: RunCounts = {
    turns: 0,
    events: 0,
    outcomes: { completed: 0, cancelled: 0, failed: 0 },
    interrupts: 0,
    predicted: 0,
    compactions: 0,
  };

  add(stats: RunCounts): void {
    const { total } = this;
    this.runs += 1;
    total.turns += stats.turns;
    total.events += stats.events;
    total.interrupts += stats.interrupts;
    total.predicted += stats.predicted;
    total.compactions += stats.compactions;
    for (const key of ['completed', 'cancelled', 'failed'] as const)
      total.outcomes[key] += stats.outcomes[key];
  }

  /**
   * The summary line, e.g. `[property] agent: 500 runs, 1,234 turns, 56,789 events checked
   * (seed 1; …)`. Runs replayed while shrinking a failure count too.
   */
  summary(name: string): string {
    const n = (x: number) => x.toLocaleString('en-US');
    const { turns, events, outcomes, interrupts, predicted, compactions } = this.total;
    return (
      `[property] ${name}: ${n(this.runs)} runs, ${n(turns)} turns, ${n(events)} events checked ` +
      `(seed ${PROPERTY_SEED}; turns ${n(outcomes.completed)} completed, ${n(outcomes.cancelled)} cancelled, ` +
      `${n(outcomes.failed)} failed; ${n(interrupts)} interrupts landed; ${n(predicted)} ends checked against ` +
      `the script; ${n(compactions)} compactions)`
    );
  }
}
