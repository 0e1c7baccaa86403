import { describe, expect, it } from 'vitest';
import type { BudgetLimits } from '../../../src/budget/plan-request.js';
import { NO_USAGE, type UsageTotals } from '../../../src/conversation/usage-totals.js';
import { ContextManager } from '../../../src/context/context-manager.js';
import { AgentError } from '../../../src/errors.js';
import { compactContext, type CompactScope } from '../../../src/runtime/steps/compact-context.js';
import { reply, ScriptedModelProvider, type ScriptStep } from '../../../src/testing/index.js';
import {
  COMPACTION_PROMPT,
  COMPACTION_SUMMARY_PREFIX,
  clearedToolResult,
} from '../../../src/prompt/templates.js';
import { HookResult, type Message, type ModelInfo } from '../../../src/types.js';
import { fakePrompt, IDS, Journal, live, model, text, usage } from './support.js';

const said = (who: 'user' | 'assistant', chars: number, fill: string): Message =>
  who === 'user'
    ? text(fill.repeat(chars))
    : { type: 'assistant', content: [{ type: 'text', text: fill.repeat(chars) }], status: 'complete' };

/** Two long old messages, then two short recent ones (about 100, 100, 20, 20 tokens). */
const CHAT = [
  said('user', 400, 'a'),
  said('assistant', 400, 'b'),
  said('user', 80, 'c'),
  said('assistant', 80, 'd'),
];

/** Two old tool results and a recent one, 100 tokens each. */
const TOOLS: Message[] = [
  text('q'),
  ...['1', '2', '3'].flatMap((n): Message[] => [
    { type: 'tool_call', callId: n, toolName: 'read', arguments: {} },
    { type: 'tool_result', callId: n, content: n.repeat(400), isError: false },
  ]),
];

interface Options {
  history: Message[];
  threshold: number;
  script?: ScriptStep[];
  model?: ModelInfo;
  /** The turn's budget and what it spent (default: none). */
  budget?: { limits: BudgetLimits; spent?: UsageTotals };
}

/** A window of 100 tokens, half of it kept as recent messages; one tool result kept whole. */
function setup(options: Options) {
  const journal = new Journal();
  const context = new ContextManager(options.history);
  const provider = new ScriptedModelProvider({ script: options.script ?? [] });
  const scope: CompactScope = {
    provider,
    model: options.model ?? model({ contextWindow: 100 }),
    history: context,
    prompt: fakePrompt(),
    sessionPrompt: { invalidate: () => journal.note('invalidate') },
    estimateTokens: (systemPrompt, messages) => context.estimateTokens(systemPrompt.length, 0, messages),
    threshold: options.threshold,
    keepRecentToolResults: 1,
    keepRecentRatio: 0.5,
    hook: journal.hook,
    budget: {
      turn: () => ({ limits: options.budget?.limits ?? {}, spent: options.budget?.spent ?? NO_USAGE }),
      session: () => ({ limits: {}, spent: NO_USAGE }),
      reportCostUnknownOnce: journal.report,
      report: journal.report,
    },
    emit: journal.emit,
    report: journal.report,
    record: journal.record,
  };
  return { journal, context, provider, scope };
}

const input = (compactionFailures = 0, maxCompactionFailures = 3) => ({
  ...IDS,
  dynamicSections: [],
  compactionFailures,
  maxCompactionFailures,
});

describe('compactContext: micro-compaction', () => {
  it('clears all but the latest tool result, saves the snapshot, and stops when that is enough', async () => {
    const { journal, context, provider, scope } = setup({ history: TOOLS, threshold: 200 });
    const before = context.estimateTokens(3, 0);
    const output = await compactContext(scope, input(2), live());

    expect(output).toEqual({ usage: null, compactionFailures: 0 });
    const results = context.messages.filter((m) => m.type === 'tool_result').map((m) => m.content);
    expect(results).toEqual([clearedToolResult(400), clearedToolResult(400), '3'.repeat(400)]);
    expect(journal.trail).toEqual(['record:context_snapshot', 'emit:context_compacted']);
    expect(journal.recorded[0]).toEqual({
      type: 'metadata',
      key: 'context_snapshot',
      value: context.messages,
    });
    expect(journal.emitted[0]).toEqual({
      type: 'context_compacted',
      strategy: 'micro',
      tokensBefore: before,
      tokensAfter: context.estimateTokens(3, 0),
    });
    expect(provider.calls).toBe(0);
  });
});

describe('compactContext: summary compaction', () => {
  it('summarizes the old messages, keeps the recent ones, reports usage, and rebuilds the prompt', async () => {
    const { journal, context, provider, scope } = setup({
      history: CHAT,
      threshold: 100,
      script: [reply.text('  The user wants a plan.  ', { usage: { inputTokens: 200, outputTokens: 10 } })],
    });
    const before = context.estimateTokens(3, 0);
    const output = await compactContext(scope, input(), live());

    expect(output).toEqual({ usage: usage(200, 10), compactionFailures: 0 });
    expect(provider.requests).toEqual([
      {
        model: 'scripted-model',
        systemPrompt: COMPACTION_PROMPT,
        messages: [...CHAT.slice(0, 2), text(COMPACTION_PROMPT)],
        tools: [],
        purpose: 'compaction',
      },
    ]);
    expect(context.messages).toEqual([
      { type: 'system', content: `${COMPACTION_SUMMARY_PREFIX}\n\nThe user wants a plan.` },
      ...CHAT.slice(2),
    ]);
    expect(journal.trail).toEqual([
      'hook:before_compact',
      'emit:usage',
      'invalidate',
      'record:context_snapshot',
      'emit:context_compacted',
    ]);
    expect(journal.hookData('before_compact')).toEqual([
      { strategy: 'summary', tokensBefore: before, messageCount: 4 },
    ]);
    expect(journal.emitted.at(-1)).toEqual({
      type: 'context_compacted',
      strategy: 'summary',
      tokensBefore: before,
      tokensAfter: context.estimateTokens(3, 0),
    });
  });

  it('runs after micro-compaction when that was not enough: two snapshots, two events', async () => {
    const history = [...CHAT, ...TOOLS];
    const { journal, scope } = setup({ history, threshold: 10, script: [reply.text('summary')] });
    await compactContext(scope, input(), live());
    expect(journal.emitted.map((e) => e.type === 'context_compacted' && e.strategy)).toEqual([
      'micro',
      'summary',
    ]);
    expect(journal.recorded).toHaveLength(2);
  });

  it('prices the summary: the server’s cost wins over the price list', async () => {
    const priced = model({ contextWindow: 100, pricing: { inputPerMillion: 1e6, outputPerMillion: 1e6 } });
    const run = async (cost?: number) => {
      const r = reply.text('sum', {
        usage: { inputTokens: 2, outputTokens: 1 },
        ...(cost !== undefined && { cost }),
      });
      const { journal, scope } = setup({ history: CHAT, threshold: 100, script: [r], model: priced });
      await compactContext(scope, input(), live());
      return journal.emitted.find((e) => e.type === 'usage');
    };
    expect(await run(0.25)).toEqual({ type: 'usage', usage: usage(2, 1), cost: 0.25 });
    expect(await run()).toEqual({ type: 'usage', usage: usage(2, 1), cost: 3 });
  });

  it('is skipped by a before_compact abort: no request, history unchanged', async () => {
    const { journal, context, provider, scope } = setup({ history: CHAT, threshold: 100 });
    journal.hooks.tap('before_compact', 'keep', null, () => HookResult.abort('keep everything'));
    const output = await compactContext(scope, input(), live());
    expect(output).toEqual({ usage: null, compactionFailures: 0 });
    expect(provider.calls).toBe(0);
    expect(context.messages).toEqual(CHAT);
    expect(journal.trail).toEqual(['hook:before_compact']);
  });
});

describe('compactContext: budgets', () => {
  /** $1 per million tokens in and out. */
  const priced = model({ contextWindow: 100, pricing: { inputPerMillion: 1, outputPerMillion: 1 } });

  it('clamps the summary request to what the budget leaves', async () => {
    const { provider, scope } = setup({
      history: CHAT,
      threshold: 100,
      model: priced,
      script: [reply.text('summary')],
      // 0.001 USD left of 0.0015: 1000 tokens, less the request's input
      budget: { limits: { maxCost: 0.0015 }, spent: { usage: usage(0, 0), cost: 0.0005 } },
    });
    await compactContext(scope, input(), live());
    const [request] = provider.requests;
    const inputTokens = Math.ceil(
      (COMPACTION_PROMPT.length * 2 + 800) / 4, // the prompt, twice, and the two old messages
    );
    expect(request!.maxOutputTokens).toBe(1000 - inputTokens);
  });

  it('one the budget cannot pay for is not sent, reported, and leaves the breaker as it was', async () => {
    const { journal, context, provider, scope } = setup({
      history: CHAT,
      threshold: 100,
      model: priced,
      script: [reply.text('summary')],
      budget: { limits: { maxCost: 0.0001 } },
    });
    expect(await compactContext(scope, input(2), live())).toEqual({ usage: null, compactionFailures: 2 });
    expect(provider.calls).toBe(0);
    expect(context.messages).toEqual(CHAT);
    expect(journal.reported.map((e) => e.message)).toEqual([
      expect.stringMatching(
        /^the turn budget of 0\.0001 USD has no room for the compaction request /,
      ),
    ]);
    expect(journal.trail).toEqual(['hook:before_compact', 'report:BUDGET_EXCEEDED']);
  });
});

describe('compactContext: the breaker', () => {
  const failing = (failures: number, max = 3) => {
    const setupResult = setup({
      history: CHAT,
      threshold: 100,
      script: [reply.error(new Error('overloaded'))],
    });
    return { ...setupResult, run: () => compactContext(setupResult.scope, input(failures, max), live()) };
  };

  it('counts a failure, reports it as COMPACT_ERROR, and leaves the history as it was', async () => {
    const { journal, context, run } = failing(0);
    expect(await run()).toEqual({ usage: null, compactionFailures: 1 });
    expect(journal.reported).toHaveLength(1);
    expect(journal.reported[0]).toMatchObject({
      code: 'COMPACT_ERROR',
      message: expect.stringContaining('overloaded'),
    });
    expect(context.messages).toEqual(CHAT);
    expect(journal.emitted).toEqual([]);
  });

  it('says compaction is off for the rest of the session exactly when the count reaches the max', async () => {
    const belowMax = failing(0, 3);
    expect(await belowMax.run()).toEqual({ usage: null, compactionFailures: 1 });
    expect(belowMax.journal.reported).toHaveLength(1);

    const oneShort = failing(1, 3);
    expect((await oneShort.run()).compactionFailures).toBe(2);
    expect(oneShort.journal.reported).toHaveLength(1);

    const reaching = failing(2, 3);
    expect((await reaching.run()).compactionFailures).toBe(3);
    expect(reaching.journal.reported.map((e) => e.code)).toEqual(['COMPACT_ERROR', 'COMPACT_ERROR']);
    expect(reaching.journal.reported[1]!.message).toContain('failed 3 times in a row');
    expect(reaching.journal.reported[1]!.message).toContain('off for the rest of this session');
  });

  it('reports an empty summary as it is (not wrapped again) and counts it', async () => {
    const { journal, context, scope } = setup({ history: CHAT, threshold: 100, script: [reply.text('   ')] });
    expect(await compactContext(scope, input(1), live())).toEqual({ usage: null, compactionFailures: 2 });
    expect(journal.reported).toHaveLength(1);
    expect(AgentError.isInstance(journal.reported[0])).toBe(true);
    expect(journal.reported[0]!.message).toBe('the model returned an empty summary');
    expect(context.messages).toEqual(CHAT);
  });

  it('neither counts nor reports a compaction the turn’s cancel stopped', async () => {
    const controller = new AbortController();
    const { journal, context, scope } = setup({
      history: CHAT,
      threshold: 100,
      script: [[{ type: 'wait', until: new Promise(() => {}) }]],
    });
    journal.hooks.tap('before_compact', 'cancel', null, () => void setImmediate(() => controller.abort()));
    expect(await compactContext(scope, input(2), controller.signal)).toEqual({
      usage: null,
      compactionFailures: 2,
    });
    expect(journal.reported).toEqual([]);
    expect(context.messages).toEqual(CHAT);
  });
});
