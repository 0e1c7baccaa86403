/**
 * Wires the pure machines to the runtime: each named actor and action of the Turn, Session and
 * Agent machines gets its implementation here, with `machine.provide()`. Implementations find
 * their session's runtime by id through `lookup`, so no service object ever enters machine
 * input, context or snapshots.
 * @module
 */
import { fromPromise } from 'xstate';
import { agentMachine } from '../../machines/agent.machine.js';
import {
  sessionMachine,
  type CloseSessionInput,
  type SessionStepInput,
} from '../../machines/session.machine.js';
import {
  turnMachine,
  type CompactOutput,
  type EndTurnInput,
  type PrepareOutput,
  type RetryInput,
  type RetryOutput,
  type StepInput,
  type StreamInput,
  type StreamOutput,
  type ToolBatchInput,
  type ToolBatchOutput,
  type TurnOutput,
} from '../../machines/turn.machine.js';
import { AgentError, Errors, toAgentError } from '../errors.js';
import { MAX_TOOL_CALLS_NOTE } from '../prompt/templates.js';
import type { SessionRuntime } from './session-runtime.js';
import { compactContext } from './steps/compact-context.js';
import { endTurn } from './steps/end-turn.js';
import { prepareRequest } from './steps/prepare-request.js';
import { waitToRetry } from './steps/wait-to-retry.js';
import { runToolBatch } from './steps/run-tool-batch.js';
import { closeSession, openSession } from './steps/session-steps.js';
import { startTurn } from './steps/start-turn.js';
import { streamModel } from './steps/stream-model.js';

/** How the actors find a session's runtime. */
export type RuntimeLookup = (sessionId: string) => SessionRuntime;

/** Options the facade passes in. */
export interface ProvideOptions {
  lookup: RuntimeLookup;
  /** Plugins' shutdown, in reverse registration order. */
  shutdownPlugins(): Promise<void>;
  /** Reports an error that has no session to go to. */
  reportUnowned(error: AgentError): void;
  /** Source of randomness for retry jitter (tests pin it). */
  random?: () => number;
}

/** Non-AgentErrors thrown by step code become `AgentError`s (the machine expects them). */
function wrap(error: unknown): unknown {
  if (AgentError.isInstance(error)) return error;
  if (typeof error === 'object' && error !== null && 'hadOutput' in error) return error;
  return toAgentError(error, 'PROVIDER_ERROR');
}

function step<I extends StepInput, O>(
  lookup: RuntimeLookup,
  run: (
    rt: SessionRuntime,
    turn: ReturnType<SessionRuntime['turn']>,
    input: I,
    signal: AbortSignal,
  ) => Promise<O>,
) {
  return fromPromise<O, I>(async ({ input, signal }) => {
    const rt = lookup(input.sessionId);
    try {
      return await run(rt, rt.turn(input.turnId), input, signal);
    } catch (error) {
      throw wrap(error);
    }
  });
}

/** The Turn machine with every step implemented. */
export function provideTurnMachine(options: ProvideOptions) {
  const { lookup } = options;
  return turnMachine.provide({
    actors: {
      startTurn: step<StepInput, void>(lookup, (rt, turn, _i, signal) => startTurn(rt, turn, signal)),
      prepareRequest: step<StepInput, PrepareOutput>(lookup, (rt, turn) => prepareRequest(rt, turn)),
      compactContext: step<StepInput, CompactOutput>(lookup, (rt, turn, _i, signal) =>
        compactContext(rt, turn, signal),
      ),
      streamModel: step<StreamInput, StreamOutput>(lookup, (rt, turn, input, signal) =>
        streamModel(rt, turn, input.attempt, signal),
      ),
      waitToRetry: step<RetryInput, RetryOutput>(lookup, (rt, turn, input, signal) =>
        waitToRetry(rt, turn, input.attempt, input.error, signal, options.random),
      ),
      runToolBatch: step<ToolBatchInput, ToolBatchOutput>(lookup, (rt, turn, input) =>
        runToolBatch(rt, turn, input.calls),
      ),
      endTurn: step<EndTurnInput, void>(lookup, (rt, turn, input, signal) =>
        endTurn(rt, turn, input, signal),
      ),
    },
    actions: {
      signalToolCancel: ({ context }) => lookup(context.sessionId).turn(context.turnId).cancel.abort(),
      noteToolLimitReached: ({ context }, params) => {
        const rt = lookup(context.sessionId);
        rt.append({ type: 'system', content: MAX_TOOL_CALLS_NOTE(params.limit) });
        rt.reportError(params.turnId, Errors.maxToolCallsExceeded(params.limit));
      },
      emitTerminal: ({ context }, params: TurnOutput & { turnId: string }) => {
        const rt = lookup(context.sessionId);
        const turn = rt.turns.get(params.turnId);
        if (params.status === 'completed') {
          rt.hub.emit(params.turnId, {
            type: 'turn_complete',
            usage: params.usage,
            finishReason: params.finishReason,
          });
        } else if (params.status === 'cancelled') {
          rt.hub.emit(params.turnId, { type: 'turn_cancelled' });
        } else {
          const error = params.error ?? Errors.provider('the turn failed');
          rt.reportError(params.turnId, error, true);
        }
        rt.hub.closeTurn(params.turnId);
        rt.turns.delete(params.turnId);
        turn?.settle({
          status: params.status,
          usage: params.usage,
          ...(params.status === 'failed' && { error: params.error ?? Errors.provider('the turn failed') }),
        });
      },
    },
  });
}

/** The Session machine with its steps and its Turn machine implemented. */
export function provideSessionMachine(options: ProvideOptions) {
  const { lookup } = options;
  return sessionMachine.provide({
    actors: {
      openSession: fromPromise<void, SessionStepInput>(({ input }) =>
        openSession(lookup(input.sessionId), input.resumed),
      ),
      turn: provideTurnMachine(options),
      closeSession: fromPromise<void, CloseSessionInput>(({ input, signal }) =>
        closeSession(lookup(input.sessionId), input, signal),
      ),
    },
    actions: {
      reportSessionError: (_, params) => {
        const error = toAgentError(params.error, 'STORAGE_ERROR');
        try {
          lookup(params.sessionId).reportError(null, error);
        } catch {
          options.reportUnowned(error);
        }
      },
      finishSession: (_, params) => lookup(params.sessionId).finish(),
    },
  });
}

/** The Agent machine, fully implemented: the logic of the root actor. */
export function provideAgentMachine(options: ProvideOptions) {
  return agentMachine.provide({
    actors: {
      session: provideSessionMachine(options),
      shutdownPlugins: fromPromise<void, void>(() => options.shutdownPlugins()),
    },
    actions: {
      reportAgentError: (_, params) => options.reportUnowned(toAgentError(params.error, 'SESSION_CLOSED')),
    },
  });
}
