import { describe, expect, it } from 'vitest';
import {
  admitRequest,
  budgetExceededMessage,
  checkRequest,
  requestTokens,
  type BudgetCheck,
  type BudgetScope,
} from '../../src/budget/check-request.js';
import { NO_USAGE } from '../../src/conversation/usage-totals.js';
import type { AgentError } from '../../src/errors.js';
import type { ChatRequest, ModelPricing } from '../../src/types.js';

/** $1 per million tokens in and out. */
const PRICING: ModelPricing = { inputPerMillion: 1, outputPerMillion: 1 };

/** 40 + 360 characters: 100 tokens. */
const REQUEST: ChatRequest = {
  model: 'm',
  systemPrompt: 'p'.repeat(40),
  messages: [{ type: 'user', content: [{ type: 'text', text: 'u'.repeat(360) }] }],
  tools: [],
  purpose: 'memory_extraction',
};

function budget(session: BudgetScope, turn: BudgetScope | null = null) {
  const reported: AgentError[] = [];
  const check: BudgetCheck = {
    turn: () => turn,
    session: () => session,
    reportCostUnknownOnce: (error) => reported.push(error),
    report: (error) => reported.push(error),
  };
  return { check, reported };
}

describe('requestTokens', () => {
  it('is chars/4 of the prompt, the messages and the tool specs', () => {
    expect(requestTokens(REQUEST)).toBe(100);
    const tools = [{ name: 't', description: 'd', parameters: { type: 'object' } }];
    expect(requestTokens({ ...REQUEST, tools })).toBe(100 + Math.ceil(JSON.stringify(tools).length / 4));
  });
});

describe('admitRequest', () => {
  it('returns the request itself when no limit applies', () => {
    const { check, reported } = budget({ limits: {}, spent: NO_USAGE }, { limits: {}, spent: NO_USAGE });
    expect(admitRequest(check, REQUEST, PRICING)).toBe(REQUEST);
    expect(reported).toEqual([]);
  });

  it('clamps maxOutputTokens to what the session leaves after the input', () => {
    const { check } = budget({ limits: { maxCost: 0.001 }, spent: NO_USAGE });
    // (0.001 × 1e6 − 100 × 1) / 1
    expect(admitRequest(check, REQUEST, PRICING)).toEqual({ ...REQUEST, maxOutputTokens: 900 });
  });

  it('keeps a lower maxOutputTokens the request asked for', () => {
    const { check } = budget({ limits: { maxCost: 0.001 }, spent: NO_USAGE });
    const asked = { ...REQUEST, maxOutputTokens: 50 };
    expect(admitRequest(check, asked, PRICING)).toEqual(asked);
  });

  it('holds to the turn too when there is one', () => {
    const { check } = budget(
      { limits: { maxTokens: 10_000 }, spent: NO_USAGE },
      { limits: { maxTokens: 300 }, spent: NO_USAGE },
    );
    expect(admitRequest(check, REQUEST, PRICING)?.maxOutputTokens).toBe(200);
  });

  it('returns null and reports BUDGET_EXCEEDED when nothing is left', () => {
    const { check, reported } = budget({ limits: { maxCost: 0.0001 }, spent: NO_USAGE });
    expect(admitRequest(check, REQUEST, PRICING)).toBeNull();
    expect(reported.map((e) => e.message)).toEqual([
      'the session budget of 0.0001 USD has no room for the memory extraction request (0 USD spent, about 100 input tokens to send)',
    ]);
  });
});

describe('checkRequest', () => {
  it('reports COST_UNKNOWN for a USD budget nothing prices, and applies the token budget', () => {
    const { check, reported } = budget({ limits: { maxCost: 1, maxTokens: 1_000 }, spent: NO_USAGE });
    expect(
      checkRequest(check, {
        estimate: 100,
        pricing: undefined,
        modelId: 'm',
        purpose: 'turn',
        maxOutputTokens: null,
      }),
    ).toEqual({ allowed: true, maxOutputTokens: 900 });
    expect(reported.map((e) => e.code)).toEqual(['COST_UNKNOWN']);
  });
});

describe('budgetExceededMessage', () => {
  it('names the request by its purpose', () => {
    const limit = { scope: 'turn', unit: 'tokens', limit: 10, spent: 9 } as const;
    expect(budgetExceededMessage(limit, 5, 'turn')).toContain('has no room for the next request');
    expect(budgetExceededMessage(limit, 5, 'compaction')).toContain('has no room for the compaction request');
    expect(budgetExceededMessage(limit, 5, 'memory_consolidation')).toContain(
      'has no room for the memory consolidation request',
    );
  });
});
