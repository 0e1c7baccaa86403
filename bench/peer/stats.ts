/**
 * The statistics of the peer bench: medians and quartiles of small samples.
 * @module
 */

/** A sample's median and quartiles. */
export interface Spread {
  median: number;
  q1: number;
  q3: number;
  n: number;
}

/** The `p` quantile of `values` (0 ≤ p ≤ 1), interpolating linearly between ranks. */
export function quantile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = (sorted.length - 1) * p;
  const low = Math.floor(rank);
  const high = Math.min(low + 1, sorted.length - 1);
  return sorted[low]! + (sorted[high]! - sorted[low]!) * (rank - low);
}

/** Median and quartiles of `values`. */
export const spread = (values: readonly number[]): Spread => ({
  median: quantile(values, 0.5),
  q1: quantile(values, 0.25),
  q3: quantile(values, 0.75),
  n: values.length,
});

/** The median of `values`. */
export const median = (values: readonly number[]): number => quantile(values, 0.5);

/** `a[i] / b[i]` for each pair: the per-round ratios of two sides measured in the same round. */
export const pairedRatios = (a: readonly number[], b: readonly number[]): number[] =>
  a.map((value, i) => value / b[i]!);
