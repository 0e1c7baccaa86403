/**
 * What a benchmark module returns to `bench/run.js`.
 * @module
 */

/** One bench's results: a titled table (one row per scenario) and notes printed under it. */
export interface BenchResult {
  title: string;
  rows: Record<string, string | number>[];
  notes?: string[];
}
