/**
 * Drives the pure Turn machine with controllable fake actors: every invoked step waits until
 * the test resolves or rejects it, so a test walks the chart one transition at a time.
 */
import { createActor, fromPromise, waitFor, type SnapshotFrom } from 'xstate';
import { turnMachine, type TurnInput, type TurnOutput } from '../../machines/turn.machine.js';
import { AgentError } from '../../src/errors.js';

export const STEP_ACTORS = [
  'startTurn',
  'prepareRequest',
  'compactContext',
  'streamModel',
  'waitToRetry',
  'runToolBatch',
  'endTurn',
] as const;
export type StepActor = (typeof STEP_ACTORS)[number];

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

  const fake = (name: StepActor) =>
    fromPromise<never, unknown>(
      ({ input, signal }) =>
        new Promise((resolve, reject) => {
          started.push(name);
          signal.addEventListener('abort', () => aborted.push(name));
          pending.set(name, { input, signal, resolve: resolve as (v: unknown) => void, reject });
        }),
    );

  const machine = turnMachine.provide({
    actors: Object.fromEntries(STEP_ACTORS.map((name) => [name, fake(name)])) as never,
    actions: {
      signalToolCancel: (_, params) => void actions.push({ type: 'signalToolCancel', params }),
      noteToolLimitReached: (_, params) => void actions.push({ type: 'noteToolLimitReached', params }),
      emitTerminal: (_, params) => void actions.push({ type: 'emitTerminal', params }),
    },
  });
  const actor = createActor(machine, {
    input: { turnId: 't1', sessionId: 's1', maxRetries: 1, maxToolCallsPerTurn: 2, ...input },
  });
  const errors: unknown[] = [];
  actor.subscribe({ error: (e) => errors.push(e) });
  actor.start();

  /** The pending invocation of `name`; throws if that step is not running. */
  function step(name: StepActor): Pending {
    const p = pending.get(name);
    if (!p) throw new Error(`step '${name}' is not running (started: ${started.join(', ')})`);
    return p;
  }

  return {
    actor,
    started,
    aborted,
    actions,
    errors,
    step,
    /** Completes the running `name` with `output` and waits until the machine has moved on. */
    async done(name: StepActor, output?: unknown) {
      const p = step(name);
      pending.delete(name);
      p.resolve(output);
      await settle();
    },
    /** Fails the running `name` with `error`. */
    async fail(name: StepActor, error: unknown) {
      const p = step(name);
      pending.delete(name);
      p.reject(error);
      await settle();
    },
    async cancel() {
      actor.send({ type: 'CANCEL' });
      await settle();
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

/** Lets promise callbacks and XState's deferred processing run. */
export async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 0));
}

export const retryable = (message = 'overloaded') =>
  new AgentError('PROVIDER_ERROR', message, { retryable: true });
export const fatal = (message = 'bad request') => new AgentError('PROVIDER_ERROR', message);
export const usage = (input: number, output: number) => ({
  inputTokens: input,
  outputTokens: output,
  totalTokens: input + output,
});
export const call = (id: string) => ({ callId: id, toolName: 'echo', arguments: '{}' });
