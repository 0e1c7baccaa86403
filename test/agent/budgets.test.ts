/**
 * Budgets through the public API: checked before every turn request on the projected cost, the
 * request's `maxOutputTokens` clamped to what is left, no request at all once nothing is left
 * (`finishReason: 'budget_exceeded'`, a non-fatal `BUDGET_EXCEEDED`), server-reported costs
 * counted over the price list, and session budgets that hold across a resume.
 *
 * The models here price input at 0, so the clamp does not depend on the token estimate:
 * `floor((limit − spent) × 1e6 / outputPerMillion)`. The full formula, estimate included, is
 * tested on `planRequest` itself.
 */
import { describe, expect, it } from 'vitest';
import { InMemorySessionStorage, type AgentEvent, type ModelInfo } from '../../src/index.js';
import { reply, SCRIPTED_MODEL, ScriptedModelProvider } from '../../src/testing/index.js';
import { current } from '../conversation/support.js';
import { createTestAgent, recordingTool } from '../support/agent.js';
import { eventsOf, recordEvents, errorPayloads } from '../support/events.js';
import { PRICED_MODEL } from '../support/models.js';

/** $1 per input token: any request overruns a budget under $1. */
const COSTLY_INPUT: ModelInfo = {
  ...SCRIPTED_MODEL,
  pricing: { inputPerMillion: 1_000_000, outputPerMillion: 10 },
};

describe('budgets', () => {
  it('a projected overrun makes no provider call: the turn completes with budget_exceeded', async () => {
    const { agent, provider } = await createTestAgent({
      models: [COSTLY_INPUT],
      config: { budget: { maxCostPerTurn: 0.5 } },
    });
    const session = await agent.newSession();
    const turn = await session.sendMessage('Hello');
    const result = await turn.result;
    expect(provider.calls).toBe(0);
    expect(result).toMatchObject({ status: 'completed', cost: null });
    const events = await eventsOf(turn);
    expect(events.at(-1)!.payload).toMatchObject({ type: 'turn_complete', finishReason: 'budget_exceeded' });
    const [error] = errorPayloads(events);
    expect(error).toMatchObject({ fatal: false, error: { code: 'BUDGET_EXCEEDED' } });
    expect(error!.error.message).toMatch(
      /^the turn budget of 0\.5 USD has no room for the next request \(0 USD spent, about \d+ input tokens to send\)$/,
    );
    await agent.shutdown();
  });

  it('clamps maxOutputTokens to what the budget can pay for', async () => {
    const { agent, provider } = await createTestAgent({
      models: [PRICED_MODEL],
      config: { budget: { maxCostPerTurn: 0.01 } },
      script: [reply.text('ok')],
    });
    const session = await agent.newSession();
    await (
      await session.sendMessage('Hello')
    ).result;
    // floor(0.01 × 1e6 / 10)
    expect(provider.requests[0]!.maxOutputTokens).toBe(1000);
    await agent.shutdown();
  });

  it('a message budget applies with the agent one: the stricter wins', async () => {
    const { agent, provider } = await createTestAgent({
      models: [PRICED_MODEL],
      config: { budget: { maxCostPerTurn: 0.01 } },
      script: [reply.text('a'), reply.text('b')],
    });
    const session = await agent.newSession();
    await (
      await session.sendMessage('one', { budget: { maxCost: 0.002 } })
    ).result;
    await (
      await session.sendMessage('two', { budget: { maxCost: 1 } })
    ).result;
    expect(provider.requests.map((r) => r.maxOutputTokens)).toEqual([200, 1000]);
    await agent.shutdown();
  });

  it('without a budget the request asks for no limit', async () => {
    const { agent, provider } = await createTestAgent({ models: [PRICED_MODEL], script: [reply.text('ok')] });
    const session = await agent.newSession();
    await (
      await session.sendMessage('Hello')
    ).result;
    expect(provider.requests[0]!.maxOutputTokens).toBeUndefined();
    await agent.shutdown();
  });

  it('counts what the turn spent: a tool loop stops before the request it cannot pay for', async () => {
    const echo = recordingTool('echo');
    const { agent, provider } = await createTestAgent({
      models: [PRICED_MODEL],
      tools: [echo.tool],
      config: { budget: { maxCostPerTurn: 0.01 } },
      script: [
        // 600 output tokens at $10 per million: $0.006 of $0.01.
        reply.toolCalls([{ name: 'echo', arguments: { text: 'a' } }], { usage: { outputTokens: 600 } }),
        // $0.004 left: 400 tokens.
        reply.toolCalls([{ name: 'echo', arguments: { text: 'b' } }], { usage: { outputTokens: 400 } }),
      ],
    });
    const session = await agent.newSession();
    const turn = await session.sendMessage('Go');
    const result = await turn.result;
    expect(provider.requests.map((r) => r.maxOutputTokens)).toEqual([1000, 400]);
    expect(provider.calls).toBe(2);
    expect(result.status).toBe('completed');
    expect(result.cost).toBeCloseTo(0.01, 12);
    expect((await eventsOf(turn)).at(-1)!.payload).toMatchObject({ finishReason: 'budget_exceeded' });
    // Both batches ran: the history ends with a tool result, valid for the next request.
    expect(echo.log).toEqual(['start:a', 'end:a', 'start:b', 'end:b']);
    expect(session.messages.at(-1)).toMatchObject({ type: 'tool_result' });
    await agent.shutdown();
  });

  it('a turn budget counts the turn’s compaction request', async () => {
    // A 2,000-token window compacts above 1,300 tokens.
    const small: ModelInfo = { ...PRICED_MODEL, contextWindow: 2_000 };
    const { agent, provider } = await createTestAgent({
      models: [small],
      config: { budget: { maxCostPerTurn: 0.01 } },
      script: [
        reply.text('x'.repeat(8_000)),
        reply.text('Summary: a long answer.', { usage: { outputTokens: 10 }, cost: 0.006 }),
        reply.text('ok', { usage: { outputTokens: 5 }, cost: 0.001 }),
      ],
    });
    const session = await agent.newSession();
    await (
      await session.sendMessage('one')
    ).result;
    const second = await (await session.sendMessage('two')).result;
    expect(provider.requests.map((r) => r.purpose)).toEqual(['turn', 'compaction', 'turn']);
    // $0.004 of the turn's $0.01 left after the compaction: floor(0.004 × 1e6 / 10)
    expect(provider.requests[2]!.maxOutputTokens).toBe(400);
    expect(second.cost).toBeCloseTo(0.007, 12);
    await agent.shutdown();
  });

  it('a server-reported cost wins over the price list', async () => {
    const { agent, provider } = await createTestAgent({
      models: [PRICED_MODEL],
      config: { budget: { maxCostPerSession: 0.01 } },
      script: [
        // The price list says $0.0005; the server says $0.009.
        reply.text('a', { usage: { inputTokens: 100, outputTokens: 50 }, cost: 0.009 }),
        reply.text('b'),
      ],
    });
    const session = await agent.newSession();
    const first = await (await session.sendMessage('one')).result;
    expect(first.cost).toBe(0.009);
    await (
      await session.sendMessage('two')
    ).result;
    // floor((0.01 − 0.009) × 1e6 / 10), not floor((0.01 − 0.0005) × 1e6 / 10) = 950
    expect(provider.requests[1]!.maxOutputTokens).toBe(100);
    await agent.shutdown();
  });

  it('the session budget holds across a resume, by a new agent on the same storage', async () => {
    const storage = new InMemorySessionStorage();
    const config = { budget: { maxCostPerSession: 0.01 } };
    const first = await createTestAgent({
      models: [PRICED_MODEL],
      sessionStorage: storage,
      config,
      script: [reply.text('a', { usage: { inputTokens: 10, outputTokens: 600 } })],
    });
    const session = await first.agent.newSession();
    expect((await (await session.sendMessage('one')).result).cost).toBeCloseTo(0.006, 12);
    await first.agent.shutdown();

    const provider = new ScriptedModelProvider({
      models: [PRICED_MODEL],
      script: [reply.text('b', { usage: { inputTokens: 10, outputTokens: 400 } })],
    });
    const second = await createTestAgent({ provider, sessionStorage: storage, config });
    const resumed = await second.agent.resumeSession(session.id);
    expect(current(resumed)).toMatchObject({
      usage: { inputTokens: 10, outputTokens: 600, totalTokens: 610 },
    });
    expect(current(resumed).cost).toBeCloseTo(0.006, 12);
    await (
      await resumed.sendMessage('two')
    ).result;
    // $0.004 left of the session's $0.01.
    expect(provider.requests[0]!.maxOutputTokens).toBe(400);
    const third = await resumed.sendMessage('three');
    expect((await third.result).status).toBe('completed');
    expect(provider.calls).toBe(1);
    expect((await eventsOf(third)).at(-1)!.payload).toMatchObject({ finishReason: 'budget_exceeded' });
    await second.agent.shutdown();
  });

  it('memory extraction counts in the session budget, stored with turnId null', async () => {
    const { agent, provider, sessionStorage } = await createTestAgent({
      models: [PRICED_MODEL],
      memory: { namespace: 'user' },
      config: { budget: { maxCostPerSession: 0.01 } },
      script: [
        reply.text('a', { usage: { inputTokens: 10, outputTokens: 10 }, cost: 0.004 }),
        // The extraction at close.
        reply.text('{"memories": []}', { usage: { inputTokens: 10, outputTokens: 10 }, cost: 0.006 }),
      ],
    });
    const session = await agent.newSession();
    await (
      await session.sendMessage('one')
    ).result;
    await session.close();
    expect(provider.requests.map((r) => r.purpose)).toEqual(['turn', 'memory_extraction']);
    const stored = (await sessionStorage!.loadSession(session.id))!;
    const records = stored.flatMap((e) =>
      e.payload.type === 'metadata' && e.payload.key === 'usage' ? [e.payload.value] : [],
    );
    expect(records).toEqual([
      {
        turnId: expect.any(String),
        usage: { inputTokens: 10, outputTokens: 10, totalTokens: 20 },
        cost: 0.004,
      },
      { turnId: null, usage: { inputTokens: 10, outputTokens: 10, totalTokens: 20 }, cost: 0.006 },
    ]);
    const resumed = await agent.resumeSession(session.id);
    const turn = await resumed.sendMessage('two');
    await turn.result;
    expect(provider.calls).toBe(2);
    expect((await eventsOf(turn)).at(-1)!.payload).toMatchObject({ finishReason: 'budget_exceeded' });
    await agent.shutdown();
  });

  it('token budgets count totalTokens', async () => {
    const { agent, provider } = await createTestAgent({
      config: { budget: { maxTokensPerSession: 1_000_000 } },
      script: [reply.text('a', { usage: { inputTokens: 400_000, outputTokens: 600_000 } })],
    });
    const session = await agent.newSession();
    await (
      await session.sendMessage('one')
    ).result;
    const second = await session.sendMessage('two');
    await second.result;
    expect(provider.calls).toBe(1);
    expect(errorPayloads(await eventsOf(second))).toMatchObject([
      {
        error: {
          code: 'BUDGET_EXCEEDED',
          message: expect.stringMatching(/^the session budget of 1000000 tokens /),
        },
      },
    ]);
    await agent.shutdown();
  });

  it('with no pricing and no server cost: COST_UNKNOWN once per Session object, and only token budgets apply', async () => {
    const { agent, provider } = await createTestAgent({
      // SCRIPTED_MODEL has no pricing.
      config: { budget: { maxCostPerTurn: 0.000001, maxTokensPerTurn: 100_000 } },
      script: [reply.text('a'), reply.text('b')],
    });
    const session = await agent.newSession();
    const recorded = recordEvents(session.events);
    await (
      await session.sendMessage('one')
    ).result;
    await (
      await session.sendMessage('two')
    ).result;
    expect(provider.calls).toBe(2); // the USD budget is not checked
    const codes = errorPayloads(recorded.events).map((e) => [e.error.code, e.fatal]);
    expect(codes).toEqual([['COST_UNKNOWN', false]]);
    // The token budget still holds the request to what is left.
    expect(provider.requests[0]!.maxOutputTokens).toBeLessThan(100_000);
    expect(provider.requests[0]!.maxOutputTokens).toBeGreaterThan(99_000);
    await agent.shutdown();
  });

  it('rejects a bad message budget with INVALID_INPUT', async () => {
    const { agent } = await createTestAgent();
    const session = await agent.newSession();
    await expect(session.sendMessage('x', { budget: { maxCost: -1 } })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
    await expect(session.sendMessage('x', { budget: { maxTokens: 1.5 } })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
    await agent.shutdown();
  });

  it('rejects a bad config budget at build()', async () => {
    await expect(createTestAgent({ config: { budget: { maxCostPerTurn: -1 } } })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
    await expect(createTestAgent({ config: { budget: { maxCost: 1 } as never } })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
  });
});
