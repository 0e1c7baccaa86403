/**
 * Budgets hold the requests the runtime makes around a turn's own: compaction summaries (the
 * turn's and the session's budgets) and memory extraction and consolidation (the session's only).
 * Each is projected like a turn request: `maxOutputTokens` clamped to what is left, or no request
 * at all with a non-fatal `BUDGET_EXCEEDED`. Without a budget those requests are as before.
 *
 * The priced model here bills input at 0, so a clamp is `floor((limit − spent) × 1e6 / 10)`
 * whatever the token estimate.
 */
import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../src/index.js';
import { reply, SCRIPTED_MODEL } from '../../src/testing/index.js';
import { createTestAgent, recordingTool } from '../support/agent.js';
import { eventsOf, recordEvents } from '../support/events.js';
import { PRICED_MODEL, SMALL_WINDOW, LONG_ANSWER } from '../support/models.js';

const errorsOf = (events: readonly AgentEvent[]) =>
  events.flatMap((e) => (e.payload.type === 'error' ? [{ turnId: e.turnId, ...e.payload }] : []));

describe('budgets: compaction requests', () => {
  it('clamps the summary request to what the turn budget leaves', async () => {
    const { agent, provider } = await createTestAgent({
      models: [SMALL_WINDOW],
      script: [
        reply.text(LONG_ANSWER),
        reply.text('Summary.', { usage: { outputTokens: 10 }, cost: 0.002 }),
        reply.text('ok'),
      ],
    });
    const session = await agent.newSession();
    await (
      await session.sendMessage('one')
    ).result;
    await (
      await session.sendMessage('two', { budget: { maxCost: 0.005 } })
    ).result;
    expect(provider.requests.map((r) => [r.purpose, r.maxOutputTokens])).toEqual([
      ['turn', undefined],
      ['compaction', 500], // floor(0.005 × 1e6 / 10)
      ['turn', 300], // $0.003 left after the summary's $0.002
    ]);
    await agent.shutdown();
  });

  it('a summary the budget cannot pay for makes no call; the turn’s own check then decides the turn', async () => {
    const { agent, provider } = await createTestAgent({
      models: [SMALL_WINDOW],
      config: { budget: { maxCostPerSession: 0.01 } },
      // All of the $0.01; the input count keeps the next request over the compaction threshold.
      script: [reply.text(LONG_ANSWER, { usage: { inputTokens: 2_000, outputTokens: 1_000 } })],
    });
    const session = await agent.newSession();
    await (
      await session.sendMessage('one')
    ).result;
    const turn = await session.sendMessage('two');
    const result = await turn.result;
    expect(provider.calls).toBe(1);
    expect(result).toMatchObject({ status: 'completed', cost: null });
    const events = await eventsOf(turn);
    expect(events.some((e) => e.payload.type === 'context_compacted')).toBe(false);
    expect(errorsOf(events).map((e) => [e.error.code, e.fatal, e.error.message.split(' (')[0]])).toEqual([
      [
        'BUDGET_EXCEEDED',
        false,
        'the session budget of 0.01 USD has no room for the compaction request',
      ],
      [
        'BUDGET_EXCEEDED',
        false,
        'the session budget of 0.01 USD has no room for the next request',
      ],
    ]);
    expect(events.at(-1)!.payload).toMatchObject({ type: 'turn_complete', finishReason: 'budget_exceeded' });
    await agent.shutdown();
  });

  it('a skipped summary is reported once a turn, and the turn’s requests that fit still go out', async () => {
    // The provider's counts make the turn's requests small (about 1,400 tokens) while the
    // history's old part, which a summary would send, is about 4,000 tokens by its characters.
    const echo = recordingTool('echo');
    const { agent, provider } = await createTestAgent({
      models: [SMALL_WINDOW],
      tools: [echo.tool],
      script: [
        reply.text('x'.repeat(16_000), { usage: { inputTokens: 1_395, outputTokens: 5 } }),
        reply.toolCalls([{ name: 'echo', arguments: { text: 'a' } }], {
          usage: { inputTokens: 1_445, outputTokens: 5 },
        }),
        reply.text('done', { usage: { inputTokens: 10, outputTokens: 5 } }),
      ],
    });
    const session = await agent.newSession();
    await (
      await session.sendMessage('one')
    ).result;
    const turn = await session.sendMessage('two', { budget: { maxTokens: 3_000 } });
    const result = await turn.result;
    expect(provider.requests.map((r) => r.purpose)).toEqual(['turn', 'turn', 'turn']);
    expect(result.status).toBe('completed');
    const events = await eventsOf(turn);
    expect(errorsOf(events).map((e) => e.error.message.split(' (')[0])).toEqual([
      'the turn budget of 3000 tokens has no room for the compaction request',
    ]);
    expect(events.at(-1)!.payload).toMatchObject({ type: 'turn_complete', finishReason: 'stop' });
    await agent.shutdown();
  });

  it('summaries skipped for the budget do not open the breaker', async () => {
    const { agent, provider } = await createTestAgent({
      models: [SMALL_WINDOW],
      // One failure would switch compaction off for the session.
      config: { compaction: { maxConsecutiveFailures: 1 } },
      script: [reply.text(LONG_ANSWER), reply.text('Summary.'), reply.text('ok')],
    });
    const session = await agent.newSession();
    await (
      await session.sendMessage('one')
    ).result;
    for (const text of ['two', 'three']) {
      const turn = await session.sendMessage(text, { budget: { maxCost: 0.000_000_1 } });
      expect(errorsOf(await eventsOf(turn)).map((e) => e.error.code)).toEqual([
        'BUDGET_EXCEEDED',
        'BUDGET_EXCEEDED',
      ]);
    }
    expect(provider.calls).toBe(1);
    const unbudgeted = await session.sendMessage('four');
    await unbudgeted.result;
    expect(provider.requests.map((r) => r.purpose)).toEqual(['turn', 'compaction', 'turn']);
    expect((await eventsOf(unbudgeted)).some((e) => e.payload.type === 'context_compacted')).toBe(true);
    await agent.shutdown();
  });
});

describe('budgets: memory requests', () => {
  it('an extraction at close over the session budget makes no call, is reported on the session, and close resolves', async () => {
    const { agent, provider, memoryStorage } = await createTestAgent({
      models: [PRICED_MODEL],
      memory: { namespace: 'user' },
      config: { budget: { maxCostPerSession: 0.01 } },
      script: [
        reply.text('Noted.', { usage: { outputTokens: 10 }, cost: 0.01 }),
        reply.text('{"memories": []}'),
      ],
    });
    const session = await agent.newSession();
    await (
      await session.sendMessage('I like tea.')
    ).result;
    const recorded = recordEvents(session.events);
    await session.close();
    expect(provider.calls).toBe(1);
    expect(errorsOf(recorded.events).map((e) => [e.turnId, e.fatal, e.error.message.split(' (')[0]])).toEqual(
      [
        [
          null,
          false,
          'the session budget of 0.01 USD has no room for the memory extraction request',
        ],
      ],
    );
    expect(recorded.completed).toBe(true);
    expect(await memoryStorage!.search('user', '', 10)).toEqual([]);
    await agent.shutdown();
  });

  it('a turn budget does not hold the extraction at close: only the session’s apply', async () => {
    const { agent, provider } = await createTestAgent({
      models: [PRICED_MODEL],
      memory: { namespace: 'user' },
      config: { budget: { maxCostPerTurn: 0.001, maxCostPerSession: 0.01 } },
      script: [reply.text('Noted.', { usage: { outputTokens: 100 } }), reply.text('{"memories": []}')],
    });
    const session = await agent.newSession();
    await (
      await session.sendMessage('I like tea.')
    ).result;
    await session.close();
    // $0.009 of the session's $0.01 left; the turn's $0.001 is spent but is not the extraction's.
    expect(provider.requests.map((r) => [r.purpose, r.maxOutputTokens])).toEqual([
      ['turn', 100],
      ['memory_extraction', 900],
    ]);
    await agent.shutdown();
  });

  it('clamps extraction and consolidation to what the session budget leaves, each after the one before', async () => {
    const { agent, provider } = await createTestAgent({
      models: [PRICED_MODEL],
      memory: { namespace: 'user', consolidateAbove: 1 },
      config: { budget: { maxCostPerSession: 0.01 } },
      script: [
        reply.text('Noted.', { usage: { outputTokens: 200 } }), // $0.002
        reply.text('{"memories": [{"content": "likes tea"}, {"content": "likes green tea"}]}', {
          usage: { outputTokens: 300 }, // $0.003
        }),
        reply.text('{"memories": [{"content": "likes (green) tea"}], "delete": []}'),
      ],
    });
    const session = await agent.newSession();
    await (
      await session.sendMessage('I like tea.')
    ).result;
    await session.close();
    expect(provider.requests.map((r) => [r.purpose, r.maxOutputTokens])).toEqual([
      ['turn', 1000],
      ['memory_extraction', 800],
      ['memory_consolidation', 500],
    ]);
    await agent.shutdown();
  });

  it('a consolidation the session budget cannot pay for is skipped and reported; the extracted memories stay', async () => {
    const { agent, provider, memoryStorage } = await createTestAgent({
      models: [PRICED_MODEL],
      memory: { namespace: 'user', consolidateAbove: 1 },
      config: { budget: { maxCostPerSession: 0.01 } },
      script: [
        reply.text('Noted.', { usage: { outputTokens: 200 } }),
        reply.text('{"memories": [{"content": "likes tea"}, {"content": "likes green tea"}]}', {
          usage: { outputTokens: 800 }, // the rest of the $0.01
        }),
      ],
    });
    const session = await agent.newSession();
    await (
      await session.sendMessage('I like tea.')
    ).result;
    const recorded = recordEvents(session.events);
    await session.close();
    expect(provider.requests.map((r) => r.purpose)).toEqual(['turn', 'memory_extraction']);
    expect(errorsOf(recorded.events).map((e) => [e.turnId, e.error.message.split(' (')[0]])).toEqual([
      [
        null,
        'the session budget of 0.01 USD has no room for the memory consolidation request',
      ],
    ]);
    expect((await memoryStorage!.search('user', '', 10)).map((m) => m.content).sort()).toEqual([
      'likes green tea',
      'likes tea',
    ]);
    await agent.shutdown();
  });
});

describe('budgets: without a budget', () => {
  it('compaction and memory requests ask for no limit and nothing is reported', async () => {
    const { agent, provider } = await createTestAgent({
      models: [SMALL_WINDOW],
      memory: { namespace: 'user' },
      script: [
        reply.text(LONG_ANSWER, { usage: { outputTokens: 10_000_000 } }), // $100
        reply.text('Summary.', { usage: { outputTokens: 10_000_000 } }),
        reply.text('ok'),
        reply.text('{"memories": []}'),
      ],
    });
    const session = await agent.newSession();
    const recorded = recordEvents(session.events);
    await (
      await session.sendMessage('one')
    ).result;
    await (
      await session.sendMessage('two')
    ).result;
    await session.close();
    expect(provider.requests.map((r) => [r.purpose, r.maxOutputTokens])).toEqual([
      ['turn', undefined],
      ['compaction', undefined],
      ['turn', undefined],
      ['memory_extraction', undefined],
    ]);
    expect(errorsOf(recorded.events)).toEqual([]);
    await agent.shutdown();
  });
});
