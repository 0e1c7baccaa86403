/**
 * The budget plan of one request: for each limit, tokens `L − S − E`, USD
 * `floor(((L − S) × 1e6 − E × in) / out)`; the request goes out with the least of them as
 * `maxOutputTokens` when it is at least 1.
 */
import { describe, expect, it } from 'vitest';
import { planRequest, type PlanInput } from '../../src/budget/plan-request.js';
import { NO_USAGE, type UsageTotals } from '../../src/conversation/usage-totals.js';

const spent = (totalTokens: number, cost: number | null): UsageTotals => ({
  usage: { inputTokens: totalTokens, outputTokens: 0, totalTokens },
  cost,
});
const pricing = { inputPerMillion: 2, outputPerMillion: 8 };
const plan = (over: Partial<PlanInput>) =>
  planRequest({
    estimate: 1000,
    pricing,
    maxOutputTokens: null,
    turn: { limits: {}, spent: NO_USAGE },
    session: { limits: {}, spent: NO_USAGE },
    ...over,
  });

describe('planRequest', () => {
  it('without limits: no clamp', () => {
    expect(plan({})).toEqual({ allowed: true, maxOutputTokens: null, costUnknown: false });
  });

  it('USD: floor(((L − S) × 1e6 − E × in) / out)', () => {
    // ((0.01 − 0.002) × 1e6 − 1000 × 2) / 8 = (8000 − 2000) / 8 = 750
    expect(plan({ turn: { limits: { maxCost: 0.01 }, spent: spent(0, 0.002) } })).toEqual({
      allowed: true,
      maxOutputTokens: 750,
      costUnknown: false,
    });
    // The projected cost then fits exactly: 1000 × 2 + 750 × 8 = 8000 micro-USD left.
  });

  it('tokens: L − S − E', () => {
    expect(plan({ session: { limits: { maxTokens: 5000 }, spent: spent(3000, null) } })).toMatchObject({
      allowed: true,
      maxOutputTokens: 1000,
    });
  });

  it('the least room of every limit wins, and names the limit that leaves none', () => {
    const both = {
      turn: { limits: { maxCost: 1, maxTokens: 1200 }, spent: NO_USAGE },
      session: { limits: { maxCost: 0.0021 }, spent: NO_USAGE },
    };
    // turn tokens 200; session USD (2100 − 2000) / 8 = 12
    expect(plan(both)).toMatchObject({ allowed: true, maxOutputTokens: 12 });
    expect(plan({ ...both, session: { limits: { maxCost: 0.002 }, spent: NO_USAGE } })).toEqual({
      allowed: false,
      exhausted: { scope: 'session', unit: 'USD', limit: 0.002, spent: 0 },
      costUnknown: false,
    });
  });

  it('the request’s own maxOutputTokens stays when it is lower', () => {
    expect(
      plan({ maxOutputTokens: 100, turn: { limits: { maxTokens: 5000 }, spent: NO_USAGE } }),
    ).toMatchObject({
      maxOutputTokens: 100,
    });
  });

  it('exactly one token left still allows the request; none does not', () => {
    expect(plan({ turn: { limits: { maxTokens: 1001 }, spent: NO_USAGE } })).toMatchObject({
      allowed: true,
      maxOutputTokens: 1,
    });
    expect(plan({ turn: { limits: { maxTokens: 1000 }, spent: NO_USAGE } })).toMatchObject({
      allowed: false,
      exhausted: { scope: 'turn', unit: 'tokens', limit: 1000, spent: 0 },
    });
  });

  it('no pricing, no cost reported: USD limits are unknown and skipped', () => {
    expect(plan({ pricing: undefined, turn: { limits: { maxCost: 0 }, spent: NO_USAGE } })).toEqual({
      allowed: true,
      maxOutputTokens: null,
      costUnknown: true,
    });
  });

  it('no pricing but server costs: only what was spent is checked', () => {
    const session = (cost: number) => ({ limits: { maxCost: 0.01 }, spent: spent(10, cost) });
    expect(plan({ pricing: undefined, session: session(0.004) })).toEqual({
      allowed: true,
      maxOutputTokens: null,
      costUnknown: false,
    });
    expect(plan({ pricing: undefined, session: session(0.01) })).toMatchObject({ allowed: false });
  });

  it('free output: any number of tokens once the input is paid for', () => {
    const free = { inputPerMillion: 2, outputPerMillion: 0 };
    expect(plan({ pricing: free, turn: { limits: { maxCost: 0.002 }, spent: NO_USAGE } })).toMatchObject({
      allowed: true,
      maxOutputTokens: null,
    });
    expect(plan({ pricing: free, turn: { limits: { maxCost: 0.0019 }, spent: NO_USAGE } })).toMatchObject({
      allowed: false,
    });
  });
});
