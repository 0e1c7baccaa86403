/**
 * The Turn machine driven transition by transition with fake actors (`machine.provide`): no
 * provider, no tools, no timers — only the chart.
 */
import { describe, expect, it } from 'vitest';
import { call, createTurnHarness, failure, fatal, response, retryable, usage } from './turn-harness.js';

describe('Turn machine', () => {
  it('walks starting → preparing → requesting → finishing → completed for a plain answer', async () => {
    const h = createTurnHarness();
    expect(h.value()).toEqual({ working: 'starting' });
    await h.done('startTurn');
    expect(h.value()).toEqual({ working: 'preparing' });
    await h.done('prepareRequest', { needsCompaction: false });
    expect(h.value()).toEqual({ working: 'requesting' });
    expect(h.step('streamModel').input).toMatchObject({ attempt: 1, turnId: 't1', sessionId: 's1' });
    await h.done('streamModel', response([], usage(10, 5)));
    expect(h.value()).toBe('finishing');
    expect(h.step('endTurn').input).toMatchObject({ status: 'completed', usage: usage(10, 5), error: null });
    await h.done('endTurn');
    const out = await h.output();
    const outcome = {
      status: 'completed',
      usage: usage(10, 5),
      finishReason: 'stop',
      error: null,
      compactionFailures: 0,
      checkpointed: false,
    };
    expect(out).toEqual(outcome);
    expect(h.actions.filter((a) => a.type === 'emitTerminal')).toEqual([
      { type: 'emitTerminal', params: { turnId: 't1', sessionId: 's1', ...outcome } },
    ]);
    expect(h.errors).toEqual([]);
  });

  it('compacts when prepareRequest says so, adding compaction usage to the turn', async () => {
    const h = createTurnHarness();
    await h.done('startTurn');
    await h.done('prepareRequest', { needsCompaction: true });
    expect(h.value()).toEqual({ working: 'compacting' });
    await h.done('compactContext', { usage: usage(100, 20), compactionFailures: 0 });
    expect(h.value()).toEqual({ working: 'requesting' });
    await h.done('streamModel', response([], usage(10, 5)));
    await h.done('endTurn');
    expect((await h.output()).usage).toEqual(usage(110, 25));
  });

  it('counts a failed compaction and, once the breaker opens, no longer compacts', async () => {
    const h = createTurnHarness({ maxCompactionFailures: 2, compactionFailures: 1, maxToolCallsPerTurn: 5 });
    await h.done('startTurn');
    await h.done('prepareRequest', { needsCompaction: true });
    expect(h.step('compactContext').input).toMatchObject({ compactionFailures: 1, maxCompactionFailures: 2 });
    await h.done('compactContext', { usage: null, compactionFailures: 2 });
    await h.done('streamModel', response([call('a')]));
    await h.done('reviewToolCalls');
    await h.done('runToolBatch', { count: 1 });
    // Over the threshold again, but the breaker is open: straight to the request.
    await h.done('prepareRequest', { needsCompaction: true });
    expect(h.value()).toEqual({ working: 'requesting' });
    await h.done('streamModel', response([]));
    await h.done('endTurn');
    expect((await h.output()).compactionFailures).toBe(2);
  });

  it('passes the dynamic sections of turn_start to every request, and reports a checkpoint', async () => {
    const h = createTurnHarness({ checkpointDue: true });
    await h.done('startTurn', { dynamicSections: ['<today>Monday</today>'] });
    expect(h.step('prepareRequest').input).toMatchObject({ dynamicSections: ['<today>Monday</today>'] });
    await h.done('prepareRequest');
    expect(h.step('streamModel').input).toMatchObject({ dynamicSections: ['<today>Monday</today>'] });
    await h.done('streamModel', response([]));
    expect(h.step('endTurn').input).toMatchObject({ checkpointDue: true });
    await h.done('endTurn', { checkpointed: true });
    expect((await h.output()).checkpointed).toBe(true);
  });

  it('a checkpoint is due only for a turn that completes', async () => {
    const h = createTurnHarness({ checkpointDue: true });
    await h.done('startTurn');
    h.cancel();
    expect(h.step('endTurn').input).toMatchObject({ status: 'cancelled', checkpointDue: false });
  });

  it('still sends the request when the compaction step crashes, and counts it as a failure', async () => {
    const h = createTurnHarness();
    await h.done('startTurn');
    await h.done('prepareRequest', { needsCompaction: true });
    await h.fail('compactContext', fatal('summary failed'));
    expect(h.value()).toEqual({ working: 'requesting' });
    expect(h.actor.getSnapshot().context.compactionFailures).toBe(1);
  });

  it('loops through tool batches back to preparing, with the pending calls as batch input', async () => {
    const h = createTurnHarness({ maxToolCallsPerTurn: 10 });
    await h.done('startTurn');
    await h.done('prepareRequest', { needsCompaction: false });
    await h.done('streamModel', response([call('a'), call('b')]));
    await h.done('reviewToolCalls');
    expect(h.value()).toEqual({ working: 'dispatchingTools' });
    expect(h.step('runToolBatch').input).toMatchObject({ calls: [call('a'), call('b')] });
    await h.done('runToolBatch', { count: 2 });
    expect(h.value()).toEqual({ working: 'preparing' });
    await h.done('prepareRequest', { needsCompaction: false });
    await h.done('streamModel', response([], usage(1, 1)));
    await h.done('endTurn');
    expect(await h.output()).toMatchObject({
      status: 'completed',
      usage: usage(11, 6),
      finishReason: 'stop',
    });
  });

  it('retries a retryable error without output, counting attempts, then gives up', async () => {
    const h = createTurnHarness({ maxRetries: 1 });
    await h.done('startTurn');
    await h.done('prepareRequest', { needsCompaction: false });
    await h.done('streamModel', failure(retryable(), false));
    expect(h.value()).toEqual({ working: 'waitingToRetry' });
    expect(h.step('waitToRetry').input).toMatchObject({ attempt: 1 });
    await h.done('waitToRetry', { retry: true });
    expect(h.value()).toEqual({ working: 'requesting' });
    expect(h.step('streamModel').input).toMatchObject({ attempt: 2 });
    const last = retryable('still overloaded');
    await h.done('streamModel', failure(last, false));
    expect(h.value()).toBe('failing');
    expect(h.step('endTurn').input).toMatchObject({ status: 'failed', error: last });
    await h.done('endTurn');
    expect(await h.output()).toMatchObject({ status: 'failed', error: last });
  });

  it('does not retry once output was streamed', async () => {
    const h = createTurnHarness({ maxRetries: 3 });
    await h.done('startTurn');
    await h.done('prepareRequest', { needsCompaction: false });
    await h.done('streamModel', failure(retryable(), true));
    expect(h.value()).toBe('failing');
  });

  it('does not retry a non-retryable error', async () => {
    const h = createTurnHarness({ maxRetries: 3 });
    await h.done('startTurn');
    await h.done('prepareRequest', { needsCompaction: false });
    await h.done('streamModel', failure(fatal(), false));
    expect(h.value()).toBe('failing');
  });

  it('fails with the error when an on_retry hook stops the retries', async () => {
    const h = createTurnHarness({ maxRetries: 3 });
    await h.done('startTurn');
    await h.done('prepareRequest', { needsCompaction: false });
    const error = retryable();
    await h.done('streamModel', failure(error));
    await h.done('waitToRetry', { retry: false });
    expect(h.value()).toBe('failing');
    await h.done('endTurn');
    expect(await h.output()).toMatchObject({ status: 'failed', error });
  });

  it('fails when startTurn is blocked', async () => {
    const h = createTurnHarness();
    const blocked = fatal('blocked');
    await h.fail('startTurn', blocked);
    expect(h.value()).toBe('failing');
    await h.done('endTurn');
    expect((await h.output()).error).toBe(blocked);
  });

  it('CANCEL while requesting stops the stream actor (aborting its signal) and ends cancelled', async () => {
    const h = createTurnHarness();
    await h.done('startTurn');
    await h.done('prepareRequest', { needsCompaction: false });
    const stream = h.step('streamModel');
    h.cancel();
    expect(stream.signal.aborted).toBe(true);
    expect(h.value()).toBe('cancelling');
    expect(h.step('endTurn').input).toMatchObject({ status: 'cancelled' });
    h.cancel(); // a second cancel is ignored
    expect(h.value()).toBe('cancelling');
    await h.done('endTurn');
    expect(await h.output()).toMatchObject({ status: 'cancelled', error: null, finishReason: 'cancelled' });
    expect(h.actions.filter((a) => a.type === 'emitTerminal')).toHaveLength(1);
  });

  it.each(['startTurn', 'prepareRequest'] as const)('CANCEL during %s ends cancelled', async (stepName) => {
    const h = createTurnHarness();
    if (stepName === 'prepareRequest') await h.done('startTurn');
    const running = h.step(stepName);
    h.cancel();
    expect(running.signal.aborted).toBe(true);
    await h.done('endTurn');
    expect((await h.output()).status).toBe('cancelled');
  });

  it('CANCEL during compaction and during a retry wait ends cancelled', async () => {
    const a = createTurnHarness();
    await a.done('startTurn');
    await a.done('prepareRequest', { needsCompaction: true });
    a.cancel();
    expect(a.aborted).toContain('compactContext');
    await a.done('endTurn');
    expect((await a.output()).status).toBe('cancelled');

    const b = createTurnHarness({ maxRetries: 2 });
    await b.done('startTurn');
    await b.done('prepareRequest', { needsCompaction: false });
    await b.done('streamModel', failure(retryable(), false));
    b.cancel();
    expect(b.aborted).toContain('waitToRetry');
    await b.done('endTurn');
    // The retried error is not the outcome of a cancelled turn.
    expect(await b.output()).toMatchObject({ status: 'cancelled', error: null });
  });

  it('CANCEL during tools lets the batch finish, signals the skip, then ends cancelled', async () => {
    const h = createTurnHarness({ maxToolCallsPerTurn: 10 });
    await h.done('startTurn');
    await h.done('prepareRequest', { needsCompaction: false });
    await h.done('streamModel', response([call('a')]));
    await h.done('reviewToolCalls');
    const batch = h.step('runToolBatch');
    h.cancel();
    expect(h.value()).toEqual({ working: 'dispatchingTools' });
    expect(batch.signal.aborted).toBe(false);
    expect(h.actions).toContainEqual({ type: 'signalToolCancel', params: { turnId: 't1', sessionId: 's1' } });
    await h.done('runToolBatch', { count: 1 });
    expect(h.value()).toBe('cancelling');
    await h.done('endTurn');
    expect((await h.output()).status).toBe('cancelled');
  });

  it('carries the repeated-call counts from each batch to the next, starting from none', async () => {
    const h = createTurnHarness({ maxToolCallsPerTurn: 10 });
    await h.done('startTurn');
    await h.done('prepareRequest', { needsCompaction: false });
    await h.done('streamModel', response([call('a')]));
    await h.done('reviewToolCalls');
    expect(h.step('runToolBatch').input).toMatchObject({ repeatCounts: {} });
    await h.done('runToolBatch', { count: 1, repeatCounts: { 'echo#1': 1 } });
    await h.done('prepareRequest', { needsCompaction: false });
    await h.done('streamModel', response([call('b')]));
    await h.done('reviewToolCalls');
    expect(h.step('runToolBatch').input).toMatchObject({ repeatCounts: { 'echo#1': 1 } });
  });

  it('stops at the tool-call limit after the batch that reaches it', async () => {
    const h = createTurnHarness({ maxToolCallsPerTurn: 3 });
    await h.done('startTurn');
    await h.done('prepareRequest', { needsCompaction: false });
    await h.done('streamModel', response([call('a'), call('b')]));
    await h.done('reviewToolCalls');
    await h.done('runToolBatch', { count: 2 });
    expect(h.value()).toEqual({ working: 'preparing' });
    await h.done('prepareRequest', { needsCompaction: false });
    await h.done('streamModel', response([call('c'), call('d')]));
    await h.done('reviewToolCalls');
    await h.done('runToolBatch', { count: 2 });
    expect(h.value()).toBe('finishing');
    expect(h.actions).toContainEqual({
      type: 'noteToolLimitReached',
      params: { turnId: 't1', sessionId: 's1', limit: 3 },
    });
    await h.done('endTurn');
    expect(await h.output()).toMatchObject({ status: 'completed', finishReason: 'max_tool_calls' });
  });

  it('reaches its final state even when endTurn fails', async () => {
    const h = createTurnHarness();
    await h.done('startTurn');
    await h.done('prepareRequest', { needsCompaction: false });
    await h.done('streamModel', response([]));
    await h.fail('endTurn', fatal('turn_end storage down'));
    expect((await h.output()).status).toBe('completed');
  });

  it('ignores CANCEL once finishing', async () => {
    const h = createTurnHarness();
    await h.done('startTurn');
    await h.done('prepareRequest', { needsCompaction: false });
    await h.done('streamModel', response([]));
    h.cancel();
    expect(h.value()).toBe('finishing');
    await h.done('endTurn');
    expect((await h.output()).status).toBe('completed');
  });

  it('fails when the tool batch actor crashes', async () => {
    const h = createTurnHarness();
    await h.done('startTurn');
    await h.done('prepareRequest', { needsCompaction: false });
    await h.done('streamModel', response([call('a')]));
    await h.done('reviewToolCalls');
    await h.fail('runToolBatch', fatal('dispatcher crashed'));
    expect(h.value()).toBe('failing');
  });
});
