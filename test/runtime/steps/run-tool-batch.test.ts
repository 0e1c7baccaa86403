import { CallKeys } from '../../../src/tools/repeated-calls.js';
import * as z from 'zod/mini';
import { describe, expect, it } from 'vitest';
import { defineTool } from '../../../src/index.js';
import { Errors } from '../../../src/errors.js';
import { TOOL_CALL_SKIPPED_TEXT } from '../../../src/prompt/tool-result-texts.js';
import { runToolBatch, type ToolBatchScope } from '../../../src/runtime/steps/run-tool-batch.js';
import { ToolDispatcher, type ToolBatchContext } from '../../../src/tools/tool-dispatcher.js';
import { IDS, Journal } from './support.js';

const upper = defineTool({
  name: 'upper',
  description: 'upper-cases',
  parameters: z.object({ text: z.string() }),
  execute: async ({ arguments: { text } }) => text.toUpperCase(),
});
const fail = defineTool({
  name: 'fail',
  description: 'fails',
  parameters: z.object({}),
  execute: async () => ({ content: 'it broke', isError: true }),
});

function setup(cancelSignal = new AbortController().signal) {
  const journal = new Journal();
  const tools = new ToolDispatcher({ tools: [upper, fail], timeoutMs: 5_000, hooks: journal.hooks });
  const scope: ToolBatchScope = {
    tools,
    pendingCalls: new Map(),
    cancelSignal,
    emit: journal.emit,
    report: journal.report,
    append: journal.append,
    markStarted: async (callId) => journal.note(`started ${callId}`),
    maxRepeats: 0,
    callKeys: new CallKeys(),
  };
  return { journal, scope };
}

const call = (callId: string, toolName: string, args: unknown = {}) => ({
  callId,
  toolName,
  arguments: JSON.stringify(args),
});

/** Runs the batch as the chart does: the recorded calls wait in the side channel, the input names them. */
function run(scope: ToolBatchScope, calls: ReturnType<typeof call>[]) {
  const pending = scope.pendingCalls as Map<string, ReturnType<typeof call>>;
  for (const c of calls) pending.set(c.callId, c);
  return runToolBatch(scope, {
    ...IDS,
    calls: calls.map(({ callId, toolName }) => ({ callId, toolName })),
    repeatCounts: {},
  });
}

describe('runToolBatch', () => {
  it('appends one tool_result per call, in call order, errors included, and returns the count', async () => {
    const { journal, scope } = setup();
    const calls = [call('c1', 'upper', { text: 'a' }), call('c2', 'fail'), call('c3', 'missing')];
    expect(await run(scope, calls)).toEqual({ count: 3, repeatCounts: {} });
    expect(journal.appended).toEqual([
      { type: 'tool_result', callId: 'c1', content: 'A', isError: false },
      { type: 'tool_result', callId: 'c2', content: 'it broke', isError: true },
      {
        type: 'tool_result',
        callId: 'c3',
        content: expect.stringContaining("Unknown tool 'missing'"),
        isError: true,
      },
    ]);
    // The results follow the batch's events: nothing is appended while calls still run.
    const kinds = journal.trail;
    expect(kinds.slice(kinds.indexOf('append:tool_result'))).toEqual([
      'append:tool_result',
      'append:tool_result',
      'append:tool_result',
    ]);
    expect(journal.emitted.filter((e) => e.type === 'tool_call_end')).toHaveLength(3);
  });

  it('gives calls skipped by a cancel their result too, so every call keeps one', async () => {
    const controller = new AbortController();
    controller.abort();
    const { journal, scope } = setup(controller.signal);
    const calls = [call('c1', 'upper', { text: 'a' }), call('c2', 'upper', { text: 'b' })];
    expect(await run(scope, calls)).toEqual({ count: 2, repeatCounts: {} });
    expect(journal.appended).toEqual([
      { type: 'tool_result', callId: 'c1', content: TOOL_CALL_SKIPPED_TEXT, isError: true },
      { type: 'tool_result', callId: 'c2', content: TOOL_CALL_SKIPPED_TEXT, isError: true },
    ]);
    expect(journal.emitted).toEqual([]);
  });

  it('hands the dispatcher the turn’s ids, its cancel signal and its event and report channels', async () => {
    const { journal, scope } = setup();
    const seen: ToolBatchContext[] = [];
    scope.tools = {
      runBatch: async (_calls, ctx) => {
        seen.push(ctx);
        ctx.emit({ type: 'turn_cancelled' });
        ctx.reportError(Errors.hookFailed('p', 'before_tool_use', 'boom'));
        return [];
      },
    };
    expect(await run(scope, [])).toEqual({ count: 0, repeatCounts: {} });
    expect(seen).toEqual([expect.objectContaining({ ...IDS, cancelSignal: scope.cancelSignal })]);
    expect(journal.trail).toEqual(['emit:turn_cancelled', 'report:HOOK_FAILED']);
  });

  it("takes each call's arguments from the side channel, never from its input (machine context holds none)", async () => {
    const { scope } = setup();
    await expect(
      runToolBatch(scope, {
        ...IDS,
        calls: [{ callId: 'ghost', toolName: 'upper' }],
        repeatCounts: {},
      }),
    ).rejects.toThrow("tool call 'ghost' has no recorded arguments");
  });
});
