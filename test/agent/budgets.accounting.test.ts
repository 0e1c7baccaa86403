/**
 * What budgets count and report, through the public API: `COST_UNKNOWN` once per `Session`
 * object, a server-reported cost over the price list for every kind of request, spending that
 * survives a reload (a new Agent on the same storage) — compaction and memory extraction
 * included, and a continued turn's own spending — and `TurnResult.cost` `null` when nothing had a
 * cost.
 */
import { describe, expect, it } from 'vitest';
import { InMemorySessionStorage, type AgentEvent, type ModelInfo } from '../../src/index.js';
import { reply, SCRIPTED_MODEL } from '../../src/testing/index.js';
import { current } from '../conversation/support.js';
import { createTestAgent, hangingTool, recordingTool } from '../support/agent.js';
import { errorPayloads, eventsOf, recordEvents } from '../support/events.js';
import { storedAfterClose } from '../support/history.js';
import { PRICED_MODEL, SMALL_WINDOW, LONG_ANSWER } from '../support/models.js';

const codesOf = (events: readonly AgentEvent[]) => errorPayloads(events).map((e) => e.error.code);

describe('COST_UNKNOWN', () => {
  it('is reported once per Session object: not again for later turns, compaction or extraction, but again by a resumed one', async () => {
    const storage = new InMemorySessionStorage();
    const small: ModelInfo = { ...SCRIPTED_MODEL, contextWindow: 2_000 }; // no pricing
    const options = {
      models: [small],
      sessionStorage: storage,
      memory: { namespace: 'user' },
      config: { budget: { maxCostPerSession: 1 } },
    };
    const first = await createTestAgent({
      ...options,
      script: [
        reply.text(LONG_ANSWER),
        reply.text('Summary.'), // compaction in the second turn
        reply.text('ok'),
        reply.text('{"memories": []}'), // extraction at close
      ],
    });
    const session = await first.agent.newSession();
    const recorded = recordEvents(session.events);
    await (
      await session.sendMessage('one')
    ).result;
    await (
      await session.sendMessage('two')
    ).result;
    await session.close();
    expect(first.provider.requests.map((r) => r.purpose)).toEqual([
      'turn',
      'compaction',
      'turn',
      'memory_extraction',
    ]);
    expect(codesOf(recorded.events)).toEqual(['COST_UNKNOWN']);
    await first.agent.shutdown();

    const second = await createTestAgent({ ...options, script: [reply.text('a'), reply.text('b')] });
    const resumed = await second.agent.resumeSession(session.id);
    const again = recordEvents(resumed.events);
    await (
      await resumed.sendMessage('three')
    ).result;
    await (
      await resumed.sendMessage('four')
    ).result;
    expect(codesOf(again.events)).toEqual(['COST_UNKNOWN']);
    await second.agent.shutdown();
  });
});

describe('server-reported costs', () => {
  it('win over the price list even when they are 0, for turn, compaction and memory requests', async () => {
    const { agent } = await createTestAgent({
      models: [SMALL_WINDOW],
      memory: { namespace: 'user' },
      config: { budget: { maxCostPerSession: 1 } },
      script: [
        // $0.01 by the price list; the input count keeps the next request over the compaction threshold.
        reply.text(LONG_ANSWER, { usage: { inputTokens: 2_000, outputTokens: 1_000 }, cost: 0 }),
        reply.text('Summary.', { usage: { outputTokens: 1_000 }, cost: 0 }),
        reply.text('ok', { usage: { outputTokens: 1_000 }, cost: 0.5 }),
        reply.text('{"memories": []}', { usage: { outputTokens: 1_000 }, cost: 0 }),
      ],
    });
    const session = await agent.newSession();
    const first = await (await session.sendMessage('one')).result;
    expect(first.cost).toBe(0);
    const second = await (await session.sendMessage('two')).result;
    expect(second.cost).toBe(0.5);
    await session.close();
    expect(current(session).cost).toBe(0.5);
    await agent.shutdown();
  });
});

describe('after a reload', () => {
  it('conversation.cost, conversation.usage and the session budget go on from every stored response', async () => {
    const storage = new InMemorySessionStorage();
    const config = { budget: { maxCostPerSession: 0.02 } };
    const first = await createTestAgent({
      models: [SMALL_WINDOW],
      sessionStorage: storage,
      memory: { namespace: 'user' },
      config,
      script: [
        reply.text(LONG_ANSWER, { usage: { inputTokens: 2_000, outputTokens: 100 } }), // $0.001
        reply.text('Summary.', { usage: { inputTokens: 50, outputTokens: 200 } }), // $0.002
        reply.text('ok', { usage: { outputTokens: 300 } }), // $0.003
        reply.text('{"memories": []}', { usage: { outputTokens: 400 } }), // $0.004
      ],
    });
    const session = await first.agent.newSession();
    await (
      await session.sendMessage('one')
    ).result;
    await (
      await session.sendMessage('two')
    ).result;
    await session.close();
    expect(first.provider.requests.map((r) => r.purpose)).toEqual([
      'turn',
      'compaction',
      'turn',
      'memory_extraction',
    ]);
    const live = current(session);
    await first.agent.shutdown();

    const second = await createTestAgent({
      models: [SMALL_WINDOW],
      sessionStorage: storage,
      config,
      script: [reply.text('b')],
    });
    const resumed = await second.agent.resumeSession(session.id);
    const reloaded = current(resumed);
    expect(reloaded.usage).toEqual({ inputTokens: 2_050, outputTokens: 1_000, totalTokens: 3_050 });
    expect(reloaded.usage).toEqual(live.usage);
    expect(reloaded.cost).toBeCloseTo(0.01, 12);
    expect(reloaded.cost).toBeCloseTo(live.cost!, 12);
    await (
      await resumed.sendMessage('three')
    ).result;
    // $0.01 of the session's $0.02 left: floor(0.01 × 1e6 / 10)
    expect(second.provider.requests[0]!.maxOutputTokens).toBe(1_000);
    await second.agent.shutdown();
  });

  it('a continued turn’s budget counts what the turn spent before the reload', async () => {
    const act = hangingTool('act');
    const first = await createTestAgent({
      models: [PRICED_MODEL],
      tools: [act.tool],
      config: { budget: { maxCostPerTurn: 0.01 } },
      script: [
        reply.toolCalls([{ name: 'act', arguments: { text: 'x' }, callId: 'c1' }], {
          usage: { outputTokens: 600 }, // $0.006 of the turn's $0.01
        }),
      ],
    });
    const session = await first.agent.newSession();
    await session.sendMessage('do it');
    await act.running;
    const storage = await storedAfterClose(first.sessionStorage!, session.id);

    const second = await createTestAgent({
      models: [PRICED_MODEL],
      tools: [recordingTool('act').tool],
      sessionStorage: storage,
      config: { budget: { maxCostPerTurn: 0.01 } },
      script: [reply.text('done', { usage: { outputTokens: 100 } })],
    });
    const resumed = await second.agent.resumeSession(session.id);
    const turn = await resumed.continueTurn();
    const result = await turn.result;
    // $0.004 left of the turn's $0.01.
    expect(second.provider.requests[0]!.maxOutputTokens).toBe(400);
    expect(result.status).toBe('completed');
    expect(result.cost).toBeCloseTo(0.007, 12);
    await second.agent.shutdown();
  });
});

describe('TurnResult.cost', () => {
  it('is null when no response had a cost (no pricing, no server cost), and so is conversation.cost', async () => {
    const { agent } = await createTestAgent({
      script: [reply.text('a', { usage: { inputTokens: 10, outputTokens: 5 } })],
    });
    const session = await agent.newSession();
    const turn = await session.sendMessage('one');
    const result = await turn.result;
    expect(result).toMatchObject({
      status: 'completed',
      usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 },
      cost: null,
    });
    expect(codesOf(await eventsOf(turn))).toEqual([]); // no budget: nothing to report
    expect(current(session).cost).toBeNull();
    await agent.shutdown();
  });

  it('is the priced cost otherwise', async () => {
    const { agent } = await createTestAgent({
      models: [PRICED_MODEL],
      script: [reply.text('a', { usage: { inputTokens: 10, outputTokens: 5 } })],
    });
    const session = await agent.newSession();
    expect((await (await session.sendMessage('one')).result).cost).toBeCloseTo(0.00005, 12);
    await agent.shutdown();
  });
});
