/**
 * The composition root: each named actor and action of the Turn, Session and Agent machines gets
 * its implementation here, with `machine.provide()` (the Turn's steps through its one step
 * runner). An implementation finds its session's parts by id through `lookup` and hands the step
 * only the scope it declares, so no service object ever enters machine input, context or
 * snapshots.
 *
 * The machines are provided once per process, not once per agent (that rebuilds three machines'
 * state trees, about a millisecond each time). An implementation finds its own agent's
 * {@link WireOptions} through the actor system it runs in: every actor of an agent shares its
 * root actor's system.
 *
 * Errors are labelled here by their real source. Steps already turn every failure of foreign
 * code into the right `AgentError` (a provider's into `PROVIDER_ERROR`, a hook's into
 * `HOOK_FAILED`, storage's into `STORAGE_ERROR`); anything else escaping a step is a bug of the
 * runtime, reported as `INTERNAL_ERROR`.
 * @module
 */
import { createActor, fromPromise, type Actor, type ActorOptions, type ActorSystem } from 'xstate';
import { agentMachine } from '../../machines/agent.machine.js';
import {
  sessionMachine,
  type CloseSessionInput,
  type OpenSessionInput,
} from '../../machines/session.machine.js';
import {
  turnMachine,
  type StepCommand,
  type StepInput,
  type TurnOutput,
  type TurnStepName,
  type TurnSteps,
} from '../../machines/turn.machine.js';
import { AgentError, describeError } from '../errors.js';
import * as Errors from '../error-constructors.js';
import { MAX_TOOL_CALLS_NOTE } from '../prompt/templates.js';
import type { SessionScope } from './session-scope.js';
import { createStepRunner } from './step-runner.js';
import * as scopes from './step-scopes.js';
import { checkBudget } from './steps/check-budget.js';
import { closeSession } from './steps/close-session.js';
import { compactContext } from './steps/compact-context.js';
import { endTurn } from './steps/end-turn.js';
import { openSession } from './steps/open-session.js';
import { prepareRequest } from './steps/prepare-request.js';
import { awaitApprovals, cancelPendingApprovals } from './steps/await-approvals.js';
import { reviewToolCalls } from './steps/review-tool-calls.js';
import { resumeTurn } from './steps/resume-turn.js';
import { runToolBatch } from './steps/run-tool-batch.js';
import { startTurn } from './steps/start-turn.js';
import { streamModel } from './steps/stream-model.js';
import { validateOutput } from './steps/validate-output.js';
import { waitToRetry } from './steps/wait-to-retry.js';
import type { TurnRun } from './turn-run.js';

/** What the facade passes in. */
export interface WireOptions {
  /** How implementations find a session's parts. */
  lookup(sessionId: string): SessionScope;
  /** Plugins' shutdown, in reverse registration order. */
  shutdownPlugins(): Promise<void>;
  /** Reports an error that has no session to go to. */
  reportUnowned(error: AgentError): void;
  /** Source of randomness for retry jitter (tests pin it). */
  random?: () => number;
}

/** Anything but an `AgentError` escaping a step is a bug of the runtime. */
export function asRuntimeError(error: unknown, where: string): AgentError {
  if (AgentError.isInstance(error)) return error;
  return Errors.internal(`${where} crashed: ${describeError(error)}`, error);
}

/** An actor system of any agent (xstate types the systems of its actors this way). */
type AnyActorSystem = ActorSystem<any>;

/** Each agent's wiring, by the actor system of its root actor. */
const wirings = new WeakMap<AnyActorSystem, WireOptions>();

/** The wiring of the agent whose actor system `system` is. */
function wiringOf(system: AnyActorSystem): WireOptions {
  const wiring = wirings.get(system);
  if (!wiring) throw new Error('an actor runs outside any agent: no wiring for its actor system');
  return wiring;
}

/** How an implementation finds a session's parts: through its agent's wiring. */
const lookupIn = (system: AnyActorSystem, sessionId: string): SessionScope =>
  wiringOf(system).lookup(sessionId);

/** How each step runs: given its session, turn, input and signal. */
type StepImplementations = {
  [K in TurnStepName]: (
    session: SessionScope,
    turn: TurnRun,
    input: TurnSteps[K]['input'],
    signal: AbortSignal,
    system: AnyActorSystem,
  ) => Promise<TurnSteps[K]['output']>;
};

const STEPS: StepImplementations = {
  startTurn: (s, t, input, signal) => startTurn(scopes.startTurnScope(s, t), input, signal),
  resumeTurn: (s, t, input, signal) => resumeTurn(scopes.resumeScope(s, t), input, signal),
  prepareRequest: (s, t, input, signal) => prepareRequest(scopes.prepareScope(s, t), input, signal),
  compactContext: (s, t, input, signal) => compactContext(scopes.compactScope(s, t), input, signal),
  checkBudget: (s, t, input) => checkBudget(scopes.checkBudgetScope(s, t), input),
  streamModel: (s, t, input, signal) => streamModel(scopes.streamScope(s, t), input, signal),
  validateOutput: (s, t, input) => validateOutput(scopes.validateOutputScope(s, t), input),
  waitToRetry: (s, t, input, signal, system) =>
    waitToRetry(scopes.retryScope(s, t, wiringOf(system).random ?? Math.random), input, signal),
  reviewToolCalls: (s, t, input) => reviewToolCalls(scopes.reviewScope(s, t), input),
  awaitApprovals: (s, t, input, signal) => awaitApprovals(scopes.approvalsScope(s, t), input, signal),
  runToolBatch: (s, t, input) => runToolBatch(scopes.toolBatchScope(s, t), input),
  endTurn: (s, t, input, signal) => endTurn(scopes.endTurnScope(s, t), input, signal),
};

/** Runs `command`'s step: finds its session and turn, and labels a bug escaping it. */
async function runCommand(
  command: StepCommand & { type: 'run' },
  signal: AbortSignal,
  system: AnyActorSystem,
): Promise<unknown> {
  try {
    const session = lookupIn(system, command.input.sessionId);
    const run = STEPS[command.step] as (
      session: SessionScope,
      turn: TurnRun,
      input: StepInput,
      signal: AbortSignal,
      system: AnyActorSystem,
    ) => Promise<unknown>;
    return await run(session, session.turn(command.input.turnId), command.input, signal, system);
  } catch (error) {
    throw asRuntimeError(error, `the ${command.step} step`);
  }
}

/** The Turn machine with every step implemented. */
function provideTurnMachine() {
  return turnMachine.provide({
    actors: { steps: createStepRunner(runCommand) },
    actions: {
      signalToolCancel: ({ system }, params) =>
        lookupIn(system, params.sessionId).turn(params.turnId).toolCancel.abort(),
      cancelPendingApprovals: ({ system }, params) => {
        const session = lookupIn(system, params.sessionId);
        cancelPendingApprovals(
          scopes.cancelApprovalsScope(session, session.turn(params.turnId)),
          params.turnId,
        );
      },
      noteToolLimitReached: ({ system }, params) => {
        const session = lookupIn(system, params.sessionId);
        session.append({ type: 'system', content: MAX_TOOL_CALLS_NOTE(params.limit) });
        session.report(params.turnId, Errors.maxToolCallsExceeded(params.limit));
      },
      emitTerminal: ({ system }, params: TurnOutput & StepInput) =>
        emitTerminal(lookupIn(system, params.sessionId), params),
    },
  });
}

/** The turn's one terminal event, then its streams close and `turn.result` settles. */
function emitTerminal(session: SessionScope, outcome: TurnOutput & StepInput): void {
  const { turnId, status, usage } = outcome;
  const turn = session.turn(turnId);
  const { cost } = turn.spent;
  if (status === 'completed') {
    session.events.emit(turnId, { type: 'turn_complete', usage, finishReason: outcome.finishReason });
    session.endTurn(turnId);
    // Only a completed turn has its structured answer (it is kept only once accepted).
    turn.settle(turn.output ? { status, usage, cost, output: turn.output.value } : { status, usage, cost });
  } else if (status === 'cancelled') {
    session.events.emit(turnId, { type: 'turn_cancelled' });
    session.endTurn(turnId);
    turn.settle({ status, usage, cost });
  } else {
    const error = outcome.error ?? Errors.internal('the turn failed without recording an error');
    session.report(turnId, error, true);
    session.endTurn(turnId);
    turn.settle({ status, usage, cost, error });
  }
}

/** The Session machine with its steps and its Turn machine implemented. */
function provideSessionMachine() {
  return sessionMachine.provide({
    actors: {
      openSession: fromPromise<void, OpenSessionInput>(async ({ input, system }) => {
        try {
          await openSession(scopes.openSessionScope(lookupIn(system, input.sessionId)), input);
        } catch (error) {
          throw asRuntimeError(error, 'the openSession step');
        }
      }),
      turn: provideTurnMachine(),
      closeSession: fromPromise<void, CloseSessionInput>(async ({ input, signal, system }) => {
        try {
          await closeSession(scopes.closeSessionScope(lookupIn(system, input.sessionId)), input, signal);
        } catch (error) {
          throw asRuntimeError(error, 'the closeSession step');
        }
      }),
    },
    actions: {
      reportSessionError: ({ system }, params) => {
        const error = asRuntimeError(params.error, 'the session');
        try {
          // A crashed turn still ends: its result settles as failed, with this error.
          lookupIn(system, params.sessionId).abandonTurn(error);
        } catch {
          wiringOf(system).reportUnowned(error);
        }
      },
      reportLockLost: ({ system }, params) => lookupIn(system, params.sessionId).loseLock(params.by),
      finishSession: ({ system }, params) => lookupIn(system, params.sessionId).finish(),
    },
  });
}

/** The Agent machine, fully implemented: the logic of every agent's root actor. */
function provideAgentMachine() {
  return agentMachine.provide({
    actors: {
      session: provideSessionMachine(),
      shutdownPlugins: fromPromise<void, void>(({ system }) => wiringOf(system).shutdownPlugins()),
    },
    actions: {
      reportAgentError: ({ system }, params) =>
        wiringOf(system).reportUnowned(asRuntimeError(params.error, 'a session')),
    },
  });
}

/** Provided on first use: importing the library builds no machine. */
let agentLogic: ReturnType<typeof provideAgentMachine> | undefined;

/** The root actor of an agent (not started), its steps wired to `options`. */
export function createAgentActor(
  options: WireOptions,
  actorOptions: ActorOptions<ReturnType<typeof provideAgentMachine>> = {},
): Actor<ReturnType<typeof provideAgentMachine>> {
  agentLogic ??= provideAgentMachine();
  const actor = createActor(agentLogic, actorOptions);
  wirings.set(actor.system, options);
  return actor;
}
