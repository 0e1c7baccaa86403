import { describe, expect, it } from 'vitest';
import { AgentError } from '../../src/errors.js';
import { retryDelayMs } from '../../src/providers/retry-policy.js';

const settings = { initialDelayMs: 500, maxDelayMs: 30_000 };
const top = () => 0.999_999_999;

describe('retryDelayMs', () => {
  it('draws full jitter from [0, initialDelayMs × 2^(attempt−1)]', () => {
    expect([1, 2, 3, 4].map((attempt) => retryDelayMs(attempt, settings, undefined, top))).toEqual([
      500, 1000, 2000, 4000,
    ]);
    expect([1, 2, 3, 4].map((attempt) => retryDelayMs(attempt, settings, undefined, () => 0))).toEqual([
      0, 0, 0, 0,
    ]);
    expect(retryDelayMs(3, settings, undefined, () => 0.25)).toBe(500);
  });

  it('never exceeds maxDelayMs, even for large attempts', () => {
    for (const attempt of [7, 10, 100, 5000]) {
      expect(retryDelayMs(attempt, settings, undefined, top)).toBe(30_000);
    }
    expect(retryDelayMs(5000, { initialDelayMs: 0, maxDelayMs: 100 }, undefined, top)).toBe(0);
  });

  it("uses the server's retryAfterMs instead of jitter, capped at maxDelayMs", () => {
    const error = new AgentError('PROVIDER_ERROR', 'rate limited', { retryable: true, retryAfterMs: 7000 });
    expect(retryDelayMs(1, settings, error, () => 0)).toBe(7000);
    expect(retryDelayMs(1, { initialDelayMs: 500, maxDelayMs: 5000 }, error, () => 0)).toBe(5000);
    expect(retryDelayMs(2, settings, { retryAfterMs: 0 }, top)).toBe(0);
  });

  it('falls back to jitter for an error without a usable retryAfterMs', () => {
    expect(retryDelayMs(2, settings, new AgentError('PROVIDER_ERROR', 'x', { retryable: true }), top)).toBe(
      1000,
    );
    expect(retryDelayMs(2, settings, { retryAfterMs: Number.NaN }, top)).toBe(1000);
  });

  it('stays inside the window even with a random source outside [0, 1)', () => {
    expect(retryDelayMs(1, settings, null, () => 7)).toBe(500);
    expect(retryDelayMs(1, settings, null, () => -1)).toBe(0);
  });
});
