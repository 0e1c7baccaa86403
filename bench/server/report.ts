/**
 * The rows of the server bench's table: one figure each, with its spread or what it is made of.
 * @module
 */
import { quantile } from '../peer/stats.js';

/** One row of the table. */
export interface Row extends Record<string, string | number> {
  part: string;
  measure: string;
  value: number;
  unit: string;
  detail: string;
}

/** A row. */
export const row = (part: string, measure: string, value: number, unit: string, detail = ''): Row => ({
  part,
  measure,
  value,
  unit,
  detail,
});

/** `value` rounded to `digits` decimals (a number, for the table's alignment). */
export const round = (value: number, digits = 2): number => Number(value.toFixed(digits));

/** `"q1–q3 a–b"` of a sample (rounded). */
export const quartiles = (values: readonly number[], digits = 2): string =>
  `q1–q3 ${round(quantile(values, 0.25), digits)}–${round(quantile(values, 0.75), digits)}, n=${values.length}`;

/** `"p50 a, p99 b"` of a sample in ms. */
export const percentiles = (values: readonly number[], digits = 3): string =>
  `p50 ${round(quantile(values, 0.5), digits)}, p99 ${round(quantile(values, 0.99), digits)} ms (n=${values.length})`;
