import { describe, expect, it } from 'vitest';
import { isoNow, type Clock } from '../src/clock.js';

const at = (ms: number): Clock => ({ now: () => ms, setTimeout: () => 0, clearTimeout: () => {} });

describe('isoNow', () => {
  it('is the clock’s time as ISO-8601, whatever order the times come in and whichever clock asks', () => {
    const times = [0, 1, 1, 1_767_225_600_000, 1_767_225_600_001, 1_767_225_600_000, 5, -1];
    for (const ms of times) expect(isoNow(at(ms))).toBe(new Date(ms).toISOString());
  });

  it('throws for a time that is not one, like Date does', () => {
    expect(() => isoNow(at(Number.NaN))).toThrow(RangeError);
    expect(isoNow(at(2))).toBe('1970-01-01T00:00:00.002Z');
  });
});
