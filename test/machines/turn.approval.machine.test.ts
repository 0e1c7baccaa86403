/**
 * The approval states of the Turn machine driven with fake actors: `reviewingTools` routes a
 * batch to `awaitingApproval` or straight to `dispatchingTools`, decisions flow from the steps'
 * outputs into the batch's input, a cancel answers what still waits, and a continued turn
 * re-enters `awaitingApproval` with the batch its stored events describe (`restoreApprovals`).
 */
import { describe, expect, it } from 'vitest';
import type { ApprovalBatch } from '../../machines/turn.machine.js';
import { call, createTurnHarness, fatal, response } from './turn-harness.js';

const awaited = (id: string) => ({ callId: id, toolName: 'echo', requestedAt: null });

async function toReview(h: ReturnType<typeof createTurnHarness>, calls: string[]) {
  await h.done('startTurn');
  await h.done('prepareRequest');
  await h.done('streamModel', response(calls.map(call)));
  expect(h.value()).toEqual({ working: 'reviewingTools' });
}

describe('Turn machine: approval', () => {
  it('requesting → reviewingTools → awaitingApproval → dispatchingTools, decisions into the batch input', async () => {
    const h = createTurnHarness({ maxToolCallsPerTurn: 10 });
    await toReview(h, ['a', 'b', 'c']);
    expect(h.step('reviewToolCalls').input).toEqual({
      turnId: 't1',
      sessionId: 's1',
      calls: [call('a'), call('b'), call('c')],
    });
    await h.done('reviewToolCalls', {
      awaiting: [awaited('a'), awaited('b')],
      decided: [{ callId: 'c', approved: false, by: 'policy' }],
    });
    expect(h.value()).toEqual({ working: 'awaitingApproval' });
    expect(h.step('awaitApprovals').input).toEqual({
      turnId: 't1',
      sessionId: 's1',
      awaiting: [awaited('a'), awaited('b')],
    });
    await h.done('awaitApprovals', {
      decided: [
        { callId: 'a', approved: true, by: 'user' },
        { callId: 'b', approved: false, by: 'timeout' },
      ],
    });
    expect(h.value()).toEqual({ working: 'dispatchingTools' });
    expect(h.step('runToolBatch').input).toMatchObject({
      calls: [{ callId: 'a' }, { callId: 'b' }, { callId: 'c' }],
      denied: [
        { callId: 'c', approved: false, by: 'policy' },
        { callId: 'b', approved: false, by: 'timeout' },
      ],
    });
    await h.done('runToolBatch', { count: 3 });
    expect(h.value()).toEqual({ working: 'preparing' });
    expect(h.errors).toEqual([]);
  });

  it('a batch with nothing to ask goes straight to dispatchingTools, with the decisions the review made', async () => {
    const h = createTurnHarness();
    await toReview(h, ['a']);
    await h.done('reviewToolCalls', {
      awaiting: [],
      decided: [{ callId: 'a', approved: false, by: 'user' }],
    });
    expect(h.value()).toEqual({ working: 'dispatchingTools' });
    expect(h.started).not.toContain('awaitApprovals');
    expect(h.step('runToolBatch').input).toMatchObject({
      denied: [{ callId: 'a', approved: false, by: 'user' }],
    });
  });

  it('the next batch starts with no decisions of the previous one', async () => {
    const h = createTurnHarness({ maxToolCallsPerTurn: 10 });
    await toReview(h, ['a']);
    await h.done('reviewToolCalls', {
      awaiting: [],
      decided: [{ callId: 'a', approved: false, by: 'user' }],
    });
    await h.done('runToolBatch', { count: 1 });
    await h.done('prepareRequest');
    await h.done('streamModel', response([call('b')]));
    await h.done('reviewToolCalls', { awaiting: [], decided: [] });
    expect(h.step('runToolBatch').input).toMatchObject({ calls: [{ callId: 'b' }], denied: [] });
  });

  it('CANCEL while awaiting answers the pending calls, stops the wait and ends cancelled', async () => {
    const h = createTurnHarness();
    await toReview(h, ['a']);
    await h.done('reviewToolCalls', { awaiting: [awaited('a')], decided: [] });
    h.cancel();
    expect(h.actions.map((a) => a.type)).toEqual(['cancelPendingApprovals']);
    expect(h.actions[0]!.params).toEqual({ turnId: 't1', sessionId: 's1' });
    expect(h.aborted).toContain('awaitApprovals');
    expect(h.value()).toBe('cancelling');
    expect(h.step('endTurn').input).toMatchObject({ status: 'cancelled' });
    await h.done('endTurn');
    expect((await h.output()).status).toBe('cancelled');
  });

  it('CANCEL while reviewing ends the turn (endTurn answers the calls)', async () => {
    const h = createTurnHarness();
    await toReview(h, ['a']);
    h.cancel();
    expect(h.aborted).toContain('reviewToolCalls');
    expect(h.value()).toBe('cancelling');
  });

  it('a crashed review or wait fails the turn with its error', async () => {
    for (const step of ['reviewToolCalls', 'awaitApprovals'] as const) {
      const h = createTurnHarness();
      await toReview(h, ['a']);
      if (step === 'awaitApprovals')
        await h.done('reviewToolCalls', { awaiting: [awaited('a')], decided: [] });
      await h.fail(step, fatal('crashed'));
      expect(h.value()).toBe('failing');
      await h.done('endTurn');
      expect((await h.output()).error?.message).toContain('crashed');
    }
  });

  it('a continued turn whose batch waits re-enters awaitingApproval with it (restoreApprovals)', async () => {
    const batch: ApprovalBatch = {
      calls: [
        { callId: 'a', toolName: 'echo' },
        { callId: 'b', toolName: 'echo' },
      ],
      awaiting: [{ callId: 'b', toolName: 'echo', requestedAt: '2030-01-01T00:00:00.000Z' }],
      decided: [{ callId: 'a', approved: false, by: 'user', reason: 'no' }],
    };
    const h = createTurnHarness({ continued: true, maxToolCallsPerTurn: 10 });
    await h.done('resumeTurn', { dynamicSections: ['<x/>'], toolCalls: batch.calls, approvals: batch });
    expect(h.value()).toEqual({ working: 'awaitingApproval' });
    expect(h.step('awaitApprovals').input).toEqual({
      turnId: 't1',
      sessionId: 's1',
      awaiting: batch.awaiting,
    });
    await h.done('awaitApprovals', { decided: [{ callId: 'b', approved: true, by: 'user' }] });
    expect(h.step('runToolBatch').input).toEqual({
      turnId: 't1',
      sessionId: 's1',
      calls: batch.calls,
      denied: [{ callId: 'a', approved: false, by: 'user', reason: 'no' }],
      repeatCounts: {},
    });
    await h.done('runToolBatch', { count: 2 });
    expect(h.step('prepareRequest').input).toMatchObject({ dynamicSections: ['<x/>'] });
  });

  it('a continued turn without a waiting batch does not enter awaitingApproval', async () => {
    const h = createTurnHarness({ continued: true });
    await h.done('resumeTurn', { dynamicSections: [], toolCalls: [call('a')], approvals: null });
    expect(h.value()).toEqual({ working: 'dispatchingTools' });
  });
});
