/**
 * The composition root: each named actor and action of the Turn, Session and Agent machines gets
 * its implementation here, with `machine.provide()`. An implementation finds its session's parts
 * by id through `lookup` and hands the step only the scope it declares, so no service object
 * ever enters machine input, context or snapshots.
 *
 * Errors are labelled here by their real source. Steps already turn every failure of foreign
 * code into the right `AgentError` (a provider's into `PROVIDER_ERROR`, a hook's into
 * `HOOK_FAILED`, storage's into `STORAGE_ERROR`); anything else escaping a step is a bug of the
 * runtime, reported as `INTERNAL_ERROR`.
 * @module
 */
import { fromPromise } from 'xstate';
import { agentMachine } from '../../machines/agent.machine.js';
import {
  sessionMachine,
  type CloseSessionInput,
  type OpenSessionInput,
} from '../../machines/session.machine.js';
import { turnMachine, type StepInput, type TurnOutput } from '../../machines/turn.machine.js';
import { AgentError, describeError, Errors } from '../errors.js';
import { MAX_TOOL_CALLS_NOTE } from '../prompt/templates.js';
import type { SessionScope } from './session-scope.js';
import * as scopes from './step-scopes.js';
import { closeSession } from './steps/close-session.js';
import { compactContext } from './steps/compact-context.js';
import { endTurn } from './steps/end-turn.js';
import { openSession } from './steps/open-session.js';
import { prepareRequest } from './steps/prepare-request.js';
import { runToolBatch } from './steps/run-tool-batch.js';
import { startTurn } from './steps/start-turn.js';
import { streamModel } from './steps/stream-model.js';
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

/** A turn step as a promise actor: finds its session and turn, runs, labels escaping bugs. */
function turnStep<I extends StepInput, O>(
  name: string,
  lookup: WireOptions['lookup'],
  run: (session: SessionScope, turn: TurnRun, input: I, signal: AbortSignal) => Promise<O>,
) {
  return fromPromise<O, I>(async ({ input, signal }) => {
    try {
      const session = lookup(input.sessionId);
      return await run(session, session.turn(input.turnId), input, signal);
    } catch (error) {
      throw asRuntimeError(error, `the ${name} step`);
    }
  });
}

/** The Turn machine with every step implemented. */
function provideTurnMachine(options: WireOptions) {
  const { lookup } = options;
  const random = options.random ?? Math.random;
  return turnMachine.provide({
    actors: {
      startTurn: turnStep('startTurn', lookup, (s, t, _input: StepInput, signal) =>
        startTurn(scopes.startTurnScope(s, t), signal),
      ),
      prepareRequest: turnStep('prepareRequest', lookup, (s, t, input) =>
        prepareRequest(scopes.prepareScope(s, t), input),
      ),
      compactContext: turnStep('compactContext', lookup, (s, t, input, signal) =>
        compactContext(scopes.compactScope(s, t), input, signal),
      ),
      streamModel: turnStep('streamModel', lookup, (s, t, input, signal) =>
        streamModel(scopes.streamScope(s, t), input, signal),
      ),
      waitToRetry: turnStep('waitToRetry', lookup, (s, t, input, signal) =>
        waitToRetry(scopes.retryScope(s, t, random), input, signal),
      ),
      runToolBatch: turnStep('runToolBatch', lookup, (s, t, input) =>
        runToolBatch(scopes.toolBatchScope(s, t), input),
      ),
      endTurn: turnStep('endTurn', lookup, (s, t, input, signal) =>
        endTurn(scopes.endTurnScope(s, t), input, signal),
      ),
    },
    actions: {
      signalToolCancel: (_, params) => lookup(params.sessionId).turn(params.turnId).toolCancel.abort(),
      noteToolLimitReached: (_, params) => {
        const session = lookup(params.sessionId);
        session.append({ type: 'system', content: MAX_TOOL_CALLS_NOTE(params.limit) });
        session.report(params.turnId, Errors.maxToolCallsExceeded(params.limit));
      },
      emitTerminal: (_, params: TurnOutput & StepInput) => emitTerminal(lookup(params.sessionId), params),
    },
  });
}

/** The turn's one terminal event, then its streams close and `turn.result` settles. */
function emitTerminal(session: SessionScope, outcome: TurnOutput & StepInput): void {
  const { turnId, status, usage } = outcome;
  const turn = session.turn(turnId);
  if (status === 'completed') {
    session.events.emit(turnId, { type: 'turn_complete', usage, finishReason: outcome.finishReason });
    session.endTurn(turnId);
    turn.settle({ status, usage });
  } else if (status === 'cancelled') {
    session.events.emit(turnId, { type: 'turn_cancelled' });
    session.endTurn(turnId);
    turn.settle({ status, usage });
  } else {
    const error = outcome.error ?? Errors.internal('the turn failed without recording an error');
    session.report(turnId, error, true);
    session.endTurn(turnId);
    turn.settle({ status, usage, error });
  }
}

/** The Session machine with its steps and its Turn machine implemented. */
function provideSessionMachine(options: WireOptions) {
  const { lookup } = options;
  return sessionMachine.provide({
    actors: {
      openSession: fromPromise<void, OpenSessionInput>(async ({ input }) => {
        try {
          await openSession(scopes.openSessionScope(lookup(input.sessionId)), input);
        } catch (error) {
          throw asRuntimeError(error, 'the openSession step');
        }
      }),
      turn: provideTurnMachine(options),
      closeSession: fromPromise<void, CloseSessionInput>(async ({ input, signal }) => {
        try {
          await closeSession(scopes.closeSessionScope(lookup(input.sessionId)), input, signal);
        } catch (error) {
          throw asRuntimeError(error, 'the closeSession step');
        }
      }),
    },
    actions: {
      reportSessionError: (_, params) => {
        const error = asRuntimeError(params.error, 'the session');
        try {
          // A crashed turn still ends: its result settles as failed, with this error.
          lookup(params.sessionId).abandonTurn(error);
        } catch {
          options.reportUnowned(error);
        }
      },
      finishSession: (_, params) => lookup(params.sessionId).finish(),
    },
  });
}

/** The Agent machine, fully implemented: the logic of the root actor. */
export function provideAgentMachine(options: WireOptions) {
  return agentMachine.provide({
    actors: {
      session: provideSessionMachine(options),
      shutdownPlugins: fromPromise<void, void>(() => options.shutdownPlugins()),
    },
    actions: {
      reportAgentError: (_, params) => options.reportUnowned(asRuntimeError(params.error, 'a session')),
    },
  });
}
