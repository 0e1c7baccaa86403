/**
 * The Turn's step runner on its own: one step at a time, each with its own signal; `stop`, the
 * next `run` and the turn's end abort the running step; only the step still running answers,
 * with `<step>.done` or `<step>.error`.
 */
import { describe, expect, it } from 'vitest';
import { assign, createActor, setup } from 'xstate';
import type { StepCommand, StepReport } from '../../machines/turn.machine.js';
import { createStepRunner, type RunStep } from '../../src/runtime/step-runner.js';
import { deferred } from '../support/waits.js';

const IDS = { turnId: 't1', sessionId: 's1' };
const run = (step: 'prepareRequest' | 'streamModel'): StepCommand =>
  step === 'prepareRequest'
    ? { type: 'run', step, input: { ...IDS, dynamicSections: [] } }
    : { type: 'run', step, input: { ...IDS, attempt: 1, dynamicSections: [], maxOutputTokens: null } };

/** A parent that keeps every report of its runner; the test commands the runner directly. */
function harness(runStep: RunStep) {
  const parent = setup({
    types: { context: {} as { reports: StepReport[] }, events: {} as StepReport },
    actors: { steps: createStepRunner(runStep) },
  }).createMachine({
    context: { reports: [] },
    invoke: { id: 'steps', src: 'steps', input: IDS },
    on: { '*': { actions: assign({ reports: ({ context, event }) => [...context.reports, event] }) } },
  });
  const actor = createActor(parent).start();
  const runner = actor.getSnapshot().children.steps!;
  return {
    actor,
    send: (command: StepCommand) => runner.send(command),
    reports: () => actor.getSnapshot().context.reports,
  };
}

/** Each step waits for the test; the signals and commands it was given are kept. */
function controlled() {
  const calls: { step: string; signal: AbortSignal; finish: ReturnType<typeof deferred<unknown>> }[] = [];
  const runStep: RunStep = (command, signal) => {
    const finish = deferred<unknown>();
    calls.push({ step: command.step, signal, finish });
    return finish.promise;
  };
  return { calls, runStep };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('the step runner', () => {
  it('answers the running step with <step>.done and its output', async () => {
    const { calls, runStep } = controlled();
    const h = harness(runStep);
    h.send(run('prepareRequest'));
    calls[0]!.finish.resolve({ needsCompaction: false });
    await settle();
    expect(h.reports()).toEqual([{ type: 'prepareRequest.done', output: { needsCompaction: false } }]);
    expect(calls[0]!.signal.aborted).toBe(false);
  });

  it('answers a step that throws or rejects with <step>.error and what it threw', async () => {
    const error = new Error('broken');
    const h = harness(() => {
      throw error;
    });
    h.send(run('streamModel'));
    await settle();
    expect(h.reports()).toEqual([{ type: 'streamModel.error', error }]);
  });

  it('stop aborts the running step, and its late answer never arrives', async () => {
    const { calls, runStep } = controlled();
    const h = harness(runStep);
    h.send(run('streamModel'));
    h.send({ type: 'stop' });
    expect(calls[0]!.signal.aborted).toBe(true);
    calls[0]!.finish.resolve({ ok: true, toolCalls: [], finishReason: 'stop', usage: null });
    await settle();
    expect(h.reports()).toEqual([]);
  });

  it('a run while another step runs aborts that one; only the new one answers', async () => {
    const { calls, runStep } = controlled();
    const h = harness(runStep);
    h.send(run('prepareRequest'));
    h.send(run('streamModel'));
    expect(calls.map((call) => [call.step, call.signal.aborted])).toEqual([
      ['prepareRequest', true],
      ['streamModel', false],
    ]);
    calls[1]!.finish.resolve('second');
    calls[0]!.finish.resolve('first');
    await settle();
    expect(h.reports()).toEqual([{ type: 'streamModel.done', output: 'second' }]);
  });

  it('a stop with nothing running does nothing; each run gets a signal of its own', async () => {
    const { calls, runStep } = controlled();
    const h = harness(runStep);
    h.send({ type: 'stop' });
    h.send(run('prepareRequest'));
    calls[0]!.finish.resolve(1);
    await settle();
    h.send({ type: 'stop' });
    h.send(run('prepareRequest'));
    expect(calls[1]!.signal).not.toBe(calls[0]!.signal);
    expect(calls[0]!.signal.aborted).toBe(false);
    calls[1]!.finish.resolve(2);
    await settle();
    expect(h.reports().map((report) => (report as { output: unknown }).output)).toEqual([1, 2]);
  });

  it('the turn ending (the runner stopped) aborts the running step', () => {
    const { calls, runStep } = controlled();
    const h = harness(runStep);
    h.send(run('streamModel'));
    h.actor.stop();
    expect(calls[0]!.signal.aborted).toBe(true);
  });
});
