import { describe, expect, it } from 'vitest';
import { costOf } from '../../src/providers/cost.js';

describe('costOf', () => {
  const usage = { inputTokens: 1000, cachedInputTokens: 800, outputTokens: 100, totalTokens: 1100 };

  it('bills cached input at the cached price and the rest at the input price', () => {
    const cost = costOf(usage, { inputPerMillion: 2.5, cachedInputPerMillion: 1.25, outputPerMillion: 10 });
    expect(cost).toBeCloseTo((200 * 2.5 + 800 * 1.25 + 100 * 10) / 1e6, 15);
  });

  it('bills all input at the input price when there is no cached price', () => {
    expect(costOf(usage, { inputPerMillion: 2.5, outputPerMillion: 10 })).toBeCloseTo(
      (1000 * 2.5 + 100 * 10) / 1e6,
      15,
    );
  });

  it('bills reasoning tokens as the output they are part of', () => {
    const withReasoning = { inputTokens: 0, outputTokens: 300, reasoningTokens: 200, totalTokens: 300 };
    expect(costOf(withReasoning, { inputPerMillion: 1, outputPerMillion: 4 })).toBeCloseTo(0.0012, 15);
  });

  it('never bills more cached tokens than input tokens', () => {
    const odd = { inputTokens: 10, cachedInputTokens: 50, outputTokens: 0, totalTokens: 10 };
    expect(costOf(odd, { inputPerMillion: 1, cachedInputPerMillion: 0.5, outputPerMillion: 1 })).toBeCloseTo(
      5 / 1e6,
      15,
    );
  });
});
