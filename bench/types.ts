/**
 * What a benchmark module exports for `bench/run.js`.
 * @module
 */

/** One bench's results: a titled table (one row per scenario) and notes printed under it. */
export interface BenchResult {
  title: string;
  rows: Record<string, string | number>[];
  notes?: string[];
}

/**
 * The `--name value` / `--name=value` options of `npm run bench` (a `--no-name` flag is `true`).
 * Every bench receives all of them and reads the ones it knows.
 */
export type BenchOptions = Readonly<Record<string, string | true>>;

/** A bench module's default export. */
export type Bench = (options: BenchOptions) => Promise<BenchResult>;
