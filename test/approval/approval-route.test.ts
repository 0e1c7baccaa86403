/** The order of approval rules, and the bounds around foreign approval code. */
import { describe, expect, it } from 'vitest';
import { approvalsPossible, isPolicyAnswer, routeApproval } from '../../src/approval/approval-route.js';
import { HookRegistry } from '../../src/hooks/hook-registry.js';
import { defineTool, type ToolHandler } from '../../src/ports/tool-handler.js';
import { ToolDispatcher } from '../../src/tools/tool-dispatcher.js';
import { callBounded } from '../../src/approval/bounded-call.js';
import { ManualClock } from '../runtime/manual-clock.js';
import * as z from 'zod/mini';

describe('approvalsPossible', () => {
  const tool = (needsApproval?: ToolHandler['needsApproval']) =>
    defineTool({
      name: 'write',
      description: 'Writes.',
      parameters: z.object({}),
      execute: async () => 'ok',
      ...(needsApproval !== undefined && { needsApproval }),
    });
  const tools = (handler: ToolHandler) =>
    new ToolDispatcher({ tools: [handler], timeoutMs: 1_000, hooks: new HookRegistry({ timeoutMs: 1_000 }) });
  const none = { policy: undefined, rules: new Map(), toolSources: new Map() };

  it('is false only when nothing can ask: no policy, rule, approving tool or tool source', () => {
    expect(approvalsPossible({ ...none, tools: tools(tool()) })).toBe(false);
    expect(approvalsPossible({ ...none, tools: tools(tool(false)) })).toBe(false);
    expect(approvalsPossible({ ...none, tools: tools(tool(true)) })).toBe(true);
    expect(approvalsPossible({ ...none, tools: tools(tool(() => false)) })).toBe(true);
    expect(approvalsPossible({ ...none, policy: () => undefined, tools: tools(tool()) })).toBe(true);
    const rules = new Map([['write', { approved: false }]]);
    expect(approvalsPossible({ ...none, rules, tools: tools(tool()) })).toBe(true);
    expect(approvalsPossible({ ...none, toolSources: new Map([['mcp', {}]]), tools: tools(tool()) })).toBe(
      true,
    );
  });
});

describe('routeApproval', () => {
  it('policy first, then the session rule, then the tool', () => {
    const allowRule = { approved: true };
    const denyRule = { approved: false, reason: 'never' };
    expect(routeApproval('allow', denyRule)).toEqual({ kind: 'decided', approved: true, by: 'policy' });
    expect(routeApproval('deny', allowRule)).toEqual({ kind: 'decided', approved: false, by: 'policy' });
    expect(routeApproval('ask', denyRule)).toEqual({
      kind: 'decided',
      approved: false,
      by: 'user',
      reason: 'never',
    });
    expect(routeApproval(undefined, allowRule)).toEqual({ kind: 'decided', approved: true, by: 'user' });
    expect(routeApproval('ask', undefined)).toEqual({ kind: 'ask' });
    expect(routeApproval(undefined, undefined)).toEqual({ kind: 'tool' });
  });
});

describe('callBounded', () => {
  const clock = new ManualClock();
  it('gives the answer, sync or async', async () => {
    expect(await callBounded(() => 'ask', 10, clock, isPolicyAnswer)).toEqual({ ok: true, value: 'ask' });
    expect(await callBounded(() => Promise.resolve(undefined), 10, clock, isPolicyAnswer)).toEqual({
      ok: true,
      value: undefined,
    });
  });

  it('turns a throw, a rejection and an answer of the wrong kind into a failure', async () => {
    const thrown = await callBounded(
      () => {
        throw new Error('boom');
      },
      10,
      clock,
      isPolicyAnswer,
    );
    expect(thrown).toEqual({ ok: false, problem: 'boom' });
    expect(
      await callBounded(() => Promise.reject(new Error('late boom')), 10, clock, isPolicyAnswer),
    ).toEqual({
      ok: false,
      problem: 'late boom',
    });
    expect(await callBounded(() => 'yes', 10, clock, isPolicyAnswer)).toEqual({
      ok: false,
      problem: 'unexpected answer "yes"',
    });
  });

  it('stops waiting at the limit', async () => {
    const outcome = callBounded(() => new Promise(() => {}), 250, clock, isPolicyAnswer);
    expect(clock.pending).toEqual([250]);
    clock.advance(250);
    expect(await outcome).toEqual({ ok: false, problem: 'no answer within 250ms' });
  });
});
