/**
 * The Turn's step runner: the one child that runs the Turn's steps (see `machines/turn.machine.ts`).
 * It runs one step at a time, each with a signal of its own that `stop`, the next `run` or the
 * turn's end aborts, and answers `<step>.done` / `<step>.error` for the step still running only:
 * a stopped step may still finish, and its late answer never reaches the chart.
 * @module
 */
import { fromCallback, type ActorSystem } from 'xstate';
import type { StepCommand, StepInput, StepReport } from '../../machines/turn.machine.js';

/** An actor system of any agent (xstate types the systems of its actors this way). */
type AnyActorSystem = ActorSystem<any>;

/** How the runner runs one command's step, in the actor system of the turn. */
export type RunStep = (
  command: StepCommand & { type: 'run' },
  signal: AbortSignal,
  system: AnyActorSystem,
) => Promise<unknown>;

/**
 * A step runner that runs each step with `run`.
 * @example
 * turnMachine.provide({ actors: { steps: createStepRunner(runCommand) } });
 */
export function createStepRunner(run: RunStep) {
  return fromCallback<StepCommand, StepInput>(({ receive, sendBack, system }) => {
    let running: AbortController | null = null;
    receive((command) => {
      running?.abort();
      running = null;
      if (command.type === 'stop') return;
      const controller = new AbortController();
      running = controller;
      const answer = (report: StepReport) => {
        if (running !== controller) return;
        running = null;
        sendBack(report);
      };
      let step: Promise<unknown>;
      try {
        step = run(command, controller.signal, system);
      } catch (error) {
        step = Promise.reject(error);
      }
      step.then(
        (output) => answer({ type: `${command.step}.done`, output } as StepReport),
        (error: unknown) => answer({ type: `${command.step}.error`, error } as StepReport),
      );
    });
    return () => running?.abort();
  });
}
