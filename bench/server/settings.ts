/**
 * The server bench's options (`npm run bench -- server --sessions 100 --only load,memory`), with
 * defaults that keep the whole bench well under two minutes on a 2-core machine.
 * @module
 */
import { countOption } from '../peer/settings.js';
import type { BenchOptions } from '../types.js';

/** The parts `--only` can pick. */
export const PARTS = [
  'throughput',
  'latency',
  'memory',
  'load',
  'postgres',
  'paced',
  'admission',
  'slow',
  'takeover',
] as const;

/** One of {@link PARTS}. */
export type Part = (typeof PARTS)[number];

/** What the server bench runs. */
export interface ServerSettings {
  /** Rounds of the throughput part (remote and in-process alternating). */
  runs: number;
  /** Concurrent sessions of the throughput part's busy row (its other row has one). */
  clients: number;
  /** Turns per session in the throughput part. */
  turns: number;
  /** Concurrent sessions of the load part. */
  sessions: number;
  /** Turns per session in the load part. */
  loadTurns: number;
  /** Sessions held open and idle in the memory part. */
  idleSessions: number;
  /** Turns per side in the latency part. */
  latencyTurns: number;
  /** Deltas per answer. */
  deltas: number;
  /** Milliseconds between deltas of the paced answers (latency and load parts). */
  paceMs: number;
  /** Sessions of the two-instance PostgreSQL part. */
  pgSessions: number;
  /** Turns per session there (each on the other instance than the last). */
  pgTurns: number;
  /** Model requests through an `openai` SDK client rather than the provider's own `fetch` client. */
  sdkClient: boolean;
  /** SIGKILLs per lease length in the take-over part. */
  kills: number;
  /** Concurrent streams of the paced part, one run each. */
  streams: readonly number[];
  only: readonly Part[];
}

const KNOWN = new Set([
  'runs',
  'clients',
  'turns',
  'sessions',
  'load-turns',
  'idle-sessions',
  'latency-turns',
  'deltas',
  'pace',
  'pg-sessions',
  'pg-turns',
  'sdk-client',
  'streams',
  'only',
  'kills',
]);

/** Reads the options; throws on a value it cannot use, warns about options it does not know. */
export function readSettings(options: BenchOptions): ServerSettings {
  const unknown = Object.keys(options).filter((name) => !KNOWN.has(name));
  if (unknown.length > 0)
    console.warn(`server bench: ignoring ${unknown.map((name) => `--${name}`).join(', ')}`);
  const count = (name: string, fallback: number, least: number, most: number) => {
    const value = countOption(options, name, fallback, least);
    if (value > most) throw new Error(`--${name} must be at most ${most}, got ${value}`);
    return value;
  };
  const only =
    typeof options.only === 'string' ? options.only.split(',').map((part) => part.trim()) : [...PARTS];
  const wrong = only.filter((part) => !(PARTS as readonly string[]).includes(part));
  if (wrong.length > 0) throw new Error(`--only takes ${PARTS.join(', ')}; got ${wrong.join(', ')}`);
  return {
    runs: count('runs', 3, 1, 50),
    clients: count('clients', 8, 1, 500),
    turns: count('turns', 10, 1, 1_000),
    sessions: count('sessions', 200, 1, 900),
    loadTurns: count('load-turns', 3, 1, 100),
    idleSessions: count('idle-sessions', 300, 10, 10_000),
    latencyTurns: count('latency-turns', 10, 1, 500),
    deltas: count('deltas', 20, 1, 2_000),
    paceMs: count('pace', 4, 1, 100),
    pgSessions: count('pg-sessions', 16, 1, 200),
    pgTurns: count('pg-turns', 4, 2, 100),
    sdkClient: options['sdk-client'] !== undefined,
    kills: count('kills', 20, 1, 200),
    streams: streamsOf(options.streams),
    only: only as Part[],
  };
}

/** `--streams 1,10,100,500` (the default): the paced part's concurrencies. */
function streamsOf(value: unknown): number[] {
  if (value === undefined) return [1, 10, 100, 500];
  const counts = String(value)
    .split(',')
    .map((part) => Number(part.trim()));
  if (counts.some((n) => !Number.isInteger(n) || n < 1 || n > 1_000))
    throw new Error(`--streams takes counts from 1 to 1000, got ${String(value)}`);
  return counts;
}
