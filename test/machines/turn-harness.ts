/**
 * Drives the pure Turn machine with the real step runner and controllable fake steps: every step
 * it is told to run waits until the test resolves or rejects it, so a test walks the chart one
 * transition at a time.
 */
import { createActor, waitFor, type SnapshotFrom } from 'xstate';
import {
  turnMachine,
  type StreamOutput,
  type TurnInput,
  type TurnOutput,
  type TurnStepName,
} from '../../machines/turn.machine.js';
import { AgentError } from '../../src/errors.js';
import { createStepRunner } from '../../src/runtime/step-runner.js';

/** Every step of the chart, once (the record's type makes the list complete). */
const STEPS: Record<TurnStepName, true> = {
  startTurn: true,
  resumeTurn: true,
  prepareRequest: true,
  compactContext: true,
  streamModel: true,
  waitToRetry: true,
  reviewToolCalls: true,
  awaitApprovals: true,
  runToolBatch: true,
  endTurn: true,
  checkBudget: true,
  validateOutput: true,
};
export const STEP_ACTORS = Object.keys(STEPS) as TurnStepName[];
export type StepActor = TurnStepName;

interface Pending {
  input: unknown;
  signal: AbortSignal;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

export type TurnSnapshot = SnapshotFrom<typeof turnMachine>;

export function createTurnHarness(input: Partial<TurnInput> = {}) {
  const pending = new Map<StepActor, Pending>();
  const started: StepActor[] = [];
  const aborted: StepActor[] = [];
  const actions: { type: string; params: unknown }[] = [];

  // The real step runner, running fake steps.
  const runner = createStepRunner(
    ({ step, input }, signal) =>
      new Promise((resolve, reject) => {
        started.push(step);
        signal.addEventListener('abort', () => aborted.push(step));
        pending.set(step, { input, signal, resolve, reject });
      }),
  );

  const machine = turnMachine.provide({
    actors: { steps: runner },
    actions: {
      signalToolCancel: (_, params) => void actions.push({ type: 'signalToolCancel', params }),
      cancelPendingApprovals: (_, params) => void actions.push({ type: 'cancelPendingApprovals', params }),
      noteToolLimitReached: (_, params) => void actions.push({ type: 'noteToolLimitReached', params }),
      emitTerminal: (_, params) => void actions.push({ type: 'emitTerminal', params }),
    },
  });
  const actor = createActor(machine, { input: { ...TURN_INPUT, ...input } });
  const errors: unknown[] = [];
  actor.subscribe({ error: (e) => errors.push(e) });
  actor.start();

  /** The pending invocation of `name`; throws if that step is not running. */
  function step(name: StepActor): Pending {
    const p = pending.get(name);
    if (!p) throw new Error(`step '${name}' is not running (started: ${started.join(', ')})`);
    return p;
  }

  /** Resolves on the machine's next snapshot: the transition a settled step caused is done. */
  function nextSnapshot(): Promise<void> {
    return new Promise((resolve) => {
      const sub = actor.subscribe({
        next: () => {
          sub.unsubscribe();
          resolve();
        },
        error: () => resolve(),
      });
    });
  }

  return {
    actor,
    started,
    aborted,
    actions,
    errors,
    step,
    /**
     * Completes the running `name` with `output` (default: the step's plain success) and waits
     * for the transition it causes.
     */
    async done(name: StepActor, output: unknown = DEFAULT_OUTPUT[name]) {
      const p = step(name);
      pending.delete(name);
      const moved = nextSnapshot();
      p.resolve(output);
      await moved;
    },
    /** Fails the running `name` with `error` (a crashed step) and waits for the transition. */
    async fail(name: StepActor, error: unknown) {
      const p = step(name);
      pending.delete(name);
      const moved = nextSnapshot();
      p.reject(error);
      await moved;
    },
    /** Sends CANCEL; the machine processes it synchronously. */
    cancel() {
      actor.send({ type: 'CANCEL' });
    },
    value(): unknown {
      return actor.getSnapshot().value;
    },
    async output(): Promise<TurnOutput> {
      const s = await waitFor(actor, (snap) => snap.status === 'done', { timeout: 1000 });
      return s.output as TurnOutput;
    },
  };
}

/** The input every harness starts with, unless a test overrides part of it. */
export const TURN_INPUT: TurnInput = {
  turnId: 't1',
  sessionId: 's1',
  maxRetries: 1,
  maxToolCallsPerTurn: 2,
  compactionFailures: 0,
  maxCompactionFailures: 3,
  continued: false,
  checkpointDue: false,
  outputRepairs: null,
  budgeted: false,
  approvalsPossible: true,
};

/** Each step's plain success. */
const DEFAULT_OUTPUT: Partial<Record<StepActor, unknown>> = {
  startTurn: { dynamicSections: [] },
  prepareRequest: { needsCompaction: false },
  compactContext: { usage: null, compactionFailures: 0 },
  reviewToolCalls: { awaiting: [], decided: [] },
  endTurn: { checkpointed: false },
  checkBudget: { allowed: true, maxOutputTokens: null },
  validateOutput: { verdict: 'accepted' },
};

export const retryable = (message = 'overloaded') =>
  new AgentError('PROVIDER_ERROR', message, { retryable: true });
export const fatal = (message = 'bad request') => new AgentError('PROVIDER_ERROR', message);
export const usage = (input: number, output: number) => ({
  inputTokens: input,
  outputTokens: output,
  totalTokens: input + output,
});
export const call = (id: string) => ({ callId: id, toolName: 'echo', arguments: '{}' });
/** A call of the tool `toolName`. */
export const namedCall = (id: string, toolName: string) => ({ ...call(id), toolName });
/** A finished response of `streamModel`. */
export const response = (
  toolCalls: ReturnType<typeof call>[],
  u: ReturnType<typeof usage> | null = usage(10, 5),
  finishReason = toolCalls.length ? 'tool_calls' : 'stop',
): StreamOutput => ({ ok: true, toolCalls, finishReason, usage: u });
/** A failed attempt of `streamModel`. */
export const failure = (error: AgentError, hadOutput = false): StreamOutput => ({
  ok: false,
  error,
  hadOutput,
});
