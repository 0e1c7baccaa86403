/**
 * The peer bench's options (`npm run bench -- peer --runs 3 --only text,long`), with defaults
 * that keep the whole bench to a few minutes on a 2-core machine.
 * @module
 */
import type { BenchOptions } from '../types.js';

/** The parts of the peer bench `--only` can pick. `text` includes the `session.conversation` runs. */
export const PARTS = ['text', 'tools', 'par', 'long', 'import'] as const;

/** One of {@link PARTS}. */
export type Part = (typeof PARTS)[number];

/** What the peer bench runs. */
export interface PeerSettings {
  /** Rounds of the one-shot scenarios and of the import time: fresh processes per side and round. */
  runs: number;
  /** Rounds of the `long` scenario (its processes take seconds each). */
  longRuns: number;
  /** Turns of the `long` session. */
  longTurns: number;
  /**
   * Untimed turns of a first session before the timed `long` one. Without them, turns 1–10 would
   * measure the JIT warming up, not a short history: the ratio would say nothing about growth.
   */
  longWarmup: number;
  /** The parts to run. */
  only: readonly Part[];
  /** Build the package and the bench scripts first (`--no-build` reuses `bench/.build/`). */
  build: boolean;
}

const KNOWN = new Set(['runs', 'long-runs', 'long-turns', 'long-warmup', 'only', 'no-build']);

/** Reads the options; throws on a value it cannot use, warns about options it does not know. */
export function readSettings(options: BenchOptions): PeerSettings {
  const unknown = Object.keys(options).filter((name) => !KNOWN.has(name));
  if (unknown.length > 0)
    console.warn(`peer bench: ignoring ${unknown.map((name) => `--${name}`).join(', ')}`);
  const count = (name: string, fallback: number, least: number) =>
    countOption(options, name, fallback, least);
  const only =
    typeof options.only === 'string' ? options.only.split(',').map((part) => part.trim()) : [...PARTS];
  const wrong = only.filter((part) => !(PARTS as readonly string[]).includes(part));
  if (wrong.length > 0) throw new Error(`--only takes ${PARTS.join(', ')}; got ${wrong.join(', ')}`);
  return {
    runs: count('runs', 7, 1),
    longRuns: count('long-runs', 5, 1),
    longTurns: count('long-turns', 500, 21),
    longWarmup: count('long-warmup', 200, 0),
    only: only as Part[],
    build: options['no-build'] === undefined,
  };
}

/** The integer option `--name` (at least `least`), or `fallback` when it is not given. */
export function countOption(options: BenchOptions, name: string, fallback: number, least: number): number {
  const value = options[name];
  if (value === undefined) return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < least) {
    throw new Error(`--${name} must be an integer ≥ ${least}, got ${String(value)}`);
  }
  return parsed;
}
