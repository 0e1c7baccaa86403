/**
 * The Turn machine: one user message → model responses and tool batches → one terminal outcome.
 * Its states are the steps of the seed's turn loop (§9). Each step's work is a named actor
 * implemented in `src/` and supplied with `machine.provide()`; here they are placeholders that
 * throw, so the chart stays pure and tests can drive it with fakes.
 *
 * Streamed tokens never pass through this machine: the `streamModel` actor pushes them to the
 * event stream itself and reports only the finished response (DESIGN.md §3).
 * @module
 */
import { assign, fromPromise, setup } from 'xstate';
import type { AgentError } from '../src/errors.js';
import type { TokenUsage, ToolCallRequest } from '../src/types.js';

/** What the Turn machine starts with. */
export interface TurnInput {
  turnId: string;
  sessionId: string;
  /** Retries after the first attempt of one request. */
  maxRetries: number;
  /** Tool calls allowed in this turn. */
  maxToolCallsPerTurn: number;
}

/** The outcome of a turn. */
export interface TurnOutput {
  status: 'completed' | 'cancelled' | 'failed';
  usage: TokenUsage;
  finishReason: string;
  error: AgentError | null;
}

/** Output of `prepareRequest`. */
export interface PrepareOutput {
  needsCompaction: boolean;
}
/** Output of `compactContext`. */
export interface CompactOutput {
  usage: TokenUsage | null;
}
/** Output of `streamModel`: one finished model response. */
export interface StreamOutput {
  toolCalls: ToolCallRequest[];
  finishReason: string;
  usage: TokenUsage | null;
}
/**
 * What `streamModel` throws: the error, and whether output was already streamed (then a retry
 * would replay it, so the turn fails instead).
 */
export interface StreamFailure {
  error: AgentError;
  hadOutput: boolean;
}
/** Output of `waitToRetry`: `false` when an `on_retry` hook stopped the retries. */
export interface RetryOutput {
  retry: boolean;
}
/** Output of `runToolBatch`. */
export interface ToolBatchOutput {
  /** Calls in the batch (skipped ones included: each got a result). */
  count: number;
}

/** Events the Turn machine accepts from outside. */
export type TurnMachineEvent = { type: 'CANCEL' };

/** Context: ids, counters, pending calls and status — never the transcript. */
export interface TurnContext {
  turnId: string;
  sessionId: string;
  maxRetries: number;
  maxToolCallsPerTurn: number;
  attempt: number;
  toolCallCount: number;
  pendingToolCalls: ToolCallRequest[];
  usage: TokenUsage;
  finishReason: string;
  lastError: AgentError | null;
  cancelRequested: boolean;
  /** Set on reaching a final state. */
  outcome: TurnOutput['status'] | null;
}

const ZERO_USAGE: TokenUsage = { inputTokens: 0, outputTokens: 0, totalTokens: 0 };

/** Adds two usages; optional counters stay absent unless either side has them. */
export function addUsage(a: TokenUsage, b: TokenUsage | null): TokenUsage {
  if (!b) return a;
  const sum: TokenUsage = {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    totalTokens: a.totalTokens + b.totalTokens,
  };
  if (a.cachedInputTokens !== undefined || b.cachedInputTokens !== undefined)
    sum.cachedInputTokens = (a.cachedInputTokens ?? 0) + (b.cachedInputTokens ?? 0);
  if (a.reasoningTokens !== undefined || b.reasoningTokens !== undefined)
    sum.reasoningTokens = (a.reasoningTokens ?? 0) + (b.reasoningTokens ?? 0);
  return sum;
}

function isStreamFailure(value: unknown): value is StreamFailure {
  return typeof value === 'object' && value !== null && 'error' in value && 'hadOutput' in value;
}

/**
 * The `AgentError` inside whatever an actor threw. Actors implemented in `src/` throw only
 * `AgentError`s (or a {@link StreamFailure} wrapping one): they wrap anything else themselves.
 */
function errorOf(thrown: unknown): AgentError {
  return (isStreamFailure(thrown) ? thrown.error : thrown) as AgentError;
}

/** The machine's output, from the outcome its final state recorded. */
function outputOf(context: TurnContext): TurnOutput {
  const status = context.outcome ?? 'failed';
  return {
    status,
    usage: context.usage,
    finishReason:
      status === 'completed' ? context.finishReason : status === 'cancelled' ? 'cancelled' : 'error',
    // A cancelled turn has no error, even if a retried attempt failed before the cancel.
    error: status === 'failed' ? context.lastError : null,
  };
}

const notProvided = (name: string) => () => Promise.reject(new Error(`actor '${name}' was not provided`));

/** Input of every step actor: which turn of which session. */
export interface StepInput {
  turnId: string;
  sessionId: string;
}
/** Input of `streamModel`. */
export interface StreamInput extends StepInput {
  attempt: number;
}
/** Input of `waitToRetry`. */
export interface RetryInput extends StepInput {
  attempt: number;
  error: AgentError;
}
/** Input of `runToolBatch`. */
export interface ToolBatchInput extends StepInput {
  calls: ToolCallRequest[];
}
/** Input of `endTurn`. */
export interface EndTurnInput extends StepInput {
  status: TurnOutput['status'];
  usage: TokenUsage;
  error: AgentError | null;
}

/** The `endTurn` step's input for an outcome (a cancelled or completed turn carries no error). */
function endTurnInput(context: TurnContext, status: TurnOutput['status']): EndTurnInput {
  return {
    turnId: context.turnId,
    sessionId: context.sessionId,
    status,
    usage: context.usage,
    error: status === 'failed' ? context.lastError : null,
  };
}

const END_TURN = { id: 'endTurn', src: 'endTurn' } as const;
const EMIT_TERMINAL = {
  type: 'emitTerminal',
  params: ({ context }: { context: TurnContext }) => ({ turnId: context.turnId, ...outputOf(context) }),
} as const;

/** Turn machine: see the table in DESIGN.md §3. */
export const turnMachine = setup({
  types: {
    input: {} as TurnInput,
    context: {} as TurnContext,
    events: {} as TurnMachineEvent,
    output: {} as TurnOutput,
    children: {} as {
      startTurn: 'startTurn';
      prepareRequest: 'prepareRequest';
      compactContext: 'compactContext';
      streamModel: 'streamModel';
      waitToRetry: 'waitToRetry';
      runToolBatch: 'runToolBatch';
      endTurn: 'endTurn';
    },
  },
  actors: {
    /** turn_start hook, skill injection, append + persist the user message. */
    startTurn: fromPromise<void, StepInput>(notProvided('startTurn')),
    /** Builds the prompt and estimates tokens. */
    prepareRequest: fromPromise<PrepareOutput, StepInput>(notProvided('prepareRequest')),
    /** before_compact hook, micro-compaction, then summary compaction if still over. */
    compactContext: fromPromise<CompactOutput, StepInput>(notProvided('compactContext')),
    /** pre_request hook, provider stream (deltas go straight to the event stream), post_request. */
    streamModel: fromPromise<StreamOutput, StreamInput>(notProvided('streamModel')),
    /** on_retry hook, then the backoff sleep. */
    waitToRetry: fromPromise<RetryOutput, RetryInput>(notProvided('waitToRetry')),
    /** Runs one batch of tool calls and appends their results. */
    runToolBatch: fromPromise<ToolBatchOutput, ToolBatchInput>(notProvided('runToolBatch')),
    /** Records a partial message, on_error, drains writes, memory checkpoint, turn_end hook. */
    endTurn: fromPromise<void, EndTurnInput>(notProvided('endTurn')),
  },
  actions: {
    recordError: assign((_, params: { error: unknown }) => ({ lastError: errorOf(params.error) })),
    recordResponse: assign(({ context }, params: { output: StreamOutput }) => ({
      pendingToolCalls: params.output.toolCalls,
      finishReason: params.output.finishReason,
      usage: addUsage(context.usage, params.output.usage),
      attempt: 1,
    })),
    countToolCalls: assign(({ context }, params: { count: number }) => ({
      toolCallCount: context.toolCallCount + params.count,
      pendingToolCalls: [],
    })),
    markOutcome: assign((_, params: { outcome: TurnOutput['status'] }) => ({ outcome: params.outcome })),
    /** Tells the running tool batch to skip calls not yet started (side channel). */
    signalToolCancel: (_, _params: { turnId: string }) => {},
    /** Appends the tool-limit note and reports `MAX_TOOL_CALLS_EXCEEDED` (non-fatal). */
    noteToolLimitReached: (_, _params: { turnId: string; limit: number }) => {},
    /** Emits the turn's one terminal event and settles `turn.result`. */
    emitTerminal: (_, _params: TurnOutput & { turnId: string }) => {},
  },
  guards: {
    needsCompaction: (_, params: { output: PrepareOutput }) => params.output.needsCompaction,
    hasToolCalls: (_, params: { output: StreamOutput }) => params.output.toolCalls.length > 0,
    canRetry: ({ context }, params: { error: unknown }) =>
      isStreamFailure(params.error) &&
      params.error.error.retryable &&
      !params.error.hadOutput &&
      context.attempt <= context.maxRetries,
    retryApproved: (_, params: { output: RetryOutput }) => params.output.retry,
    cancelRequested: ({ context }) => context.cancelRequested,
    toolLimitReached: ({ context }, params: { count: number }) =>
      context.toolCallCount + params.count >= context.maxToolCallsPerTurn,
  },
}).createMachine({
  id: 'turn',
  context: ({ input }) => ({
    ...input,
    attempt: 1,
    toolCallCount: 0,
    pendingToolCalls: [],
    usage: ZERO_USAGE,
    finishReason: '',
    lastError: null,
    cancelRequested: false,
    outcome: null,
  }),
  initial: 'working',
  output: ({ context }) => outputOf(context),
  states: {
    working: {
      initial: 'starting',
      on: {
        // Leaving a working state stops its actor, which aborts the actor's signal (and with it
        // the HTTP request). `dispatchingTools` overrides this: started tools finish.
        CANCEL: { target: 'cancelling', actions: assign({ cancelRequested: true }) },
      },
      states: {
        starting: {
          invoke: {
            id: 'startTurn',
            src: 'startTurn',
            input: ({ context }) => ({ turnId: context.turnId, sessionId: context.sessionId }),
            onDone: 'preparing',
            onError: {
              target: '#turn.failing',
              actions: { type: 'recordError', params: ({ event }) => ({ error: event.error }) },
            },
          },
        },
        preparing: {
          invoke: {
            id: 'prepareRequest',
            src: 'prepareRequest',
            input: ({ context }) => ({ turnId: context.turnId, sessionId: context.sessionId }),
            onDone: [
              {
                guard: { type: 'needsCompaction', params: ({ event }) => ({ output: event.output }) },
                target: 'compacting',
              },
              { target: 'requesting' },
            ],
            onError: {
              target: '#turn.failing',
              actions: { type: 'recordError', params: ({ event }) => ({ error: event.error }) },
            },
          },
        },
        compacting: {
          invoke: {
            id: 'compactContext',
            src: 'compactContext',
            input: ({ context }) => ({ turnId: context.turnId, sessionId: context.sessionId }),
            onDone: {
              target: 'requesting',
              actions: assign({ usage: ({ context, event }) => addUsage(context.usage, event.output.usage) }),
            },
            // A failed compaction is counted by the breaker inside the actor; the request still goes out.
            onError: 'requesting',
          },
        },
        requesting: {
          invoke: {
            id: 'streamModel',
            src: 'streamModel',
            input: ({ context }) => ({
              turnId: context.turnId,
              sessionId: context.sessionId,
              attempt: context.attempt,
            }),
            onDone: [
              {
                guard: { type: 'hasToolCalls', params: ({ event }) => ({ output: event.output }) },
                target: 'dispatchingTools',
                actions: { type: 'recordResponse', params: ({ event }) => ({ output: event.output }) },
              },
              {
                target: '#turn.finishing',
                actions: { type: 'recordResponse', params: ({ event }) => ({ output: event.output }) },
              },
            ],
            onError: [
              {
                guard: { type: 'canRetry', params: ({ event }) => ({ error: event.error }) },
                target: 'waitingToRetry',
                actions: { type: 'recordError', params: ({ event }) => ({ error: event.error }) },
              },
              {
                target: '#turn.failing',
                actions: { type: 'recordError', params: ({ event }) => ({ error: event.error }) },
              },
            ],
          },
        },
        waitingToRetry: {
          invoke: {
            id: 'waitToRetry',
            src: 'waitToRetry',
            input: ({ context }) => ({
              turnId: context.turnId,
              sessionId: context.sessionId,
              attempt: context.attempt,
              // canRetry guarantees lastError is set here.
              error: context.lastError as AgentError,
            }),
            onDone: [
              {
                guard: { type: 'retryApproved', params: ({ event }) => ({ output: event.output }) },
                target: 'requesting',
                actions: assign({ attempt: ({ context }) => context.attempt + 1, lastError: null }),
              },
              { target: '#turn.failing' },
            ],
            onError: '#turn.failing',
          },
        },
        dispatchingTools: {
          on: {
            CANCEL: {
              actions: [
                assign({ cancelRequested: true }),
                { type: 'signalToolCancel', params: ({ context }) => ({ turnId: context.turnId }) },
              ],
            },
          },
          invoke: {
            id: 'runToolBatch',
            src: 'runToolBatch',
            input: ({ context }) => ({
              turnId: context.turnId,
              sessionId: context.sessionId,
              calls: context.pendingToolCalls,
            }),
            onDone: [
              {
                guard: 'cancelRequested',
                target: '#turn.cancelling',
                actions: { type: 'countToolCalls', params: ({ event }) => ({ count: event.output.count }) },
              },
              {
                guard: { type: 'toolLimitReached', params: ({ event }) => ({ count: event.output.count }) },
                target: '#turn.finishing',
                actions: [
                  { type: 'countToolCalls', params: ({ event }) => ({ count: event.output.count }) },
                  assign({ finishReason: 'max_tool_calls' }),
                  {
                    type: 'noteToolLimitReached',
                    params: ({ context }) => ({ turnId: context.turnId, limit: context.maxToolCallsPerTurn }),
                  },
                ],
              },
              {
                target: 'preparing',
                actions: { type: 'countToolCalls', params: ({ event }) => ({ count: event.output.count }) },
              },
            ],
            onError: {
              target: '#turn.failing',
              actions: { type: 'recordError', params: ({ event }) => ({ error: event.error }) },
            },
          },
        },
      },
    },
    finishing: {
      invoke: {
        ...END_TURN,
        input: ({ context }) => endTurnInput(context, 'completed'),
        onDone: 'completed',
        onError: 'completed',
      },
    },
    cancelling: {
      invoke: {
        ...END_TURN,
        input: ({ context }) => endTurnInput(context, 'cancelled'),
        onDone: 'cancelled',
        onError: 'cancelled',
      },
    },
    failing: {
      invoke: {
        ...END_TURN,
        input: ({ context }) => endTurnInput(context, 'failed'),
        onDone: 'failed',
        onError: 'failed',
      },
    },
    // Each final state records its outcome, then emits the turn's one terminal event.
    completed: {
      type: 'final',
      entry: [{ type: 'markOutcome', params: { outcome: 'completed' } }, EMIT_TERMINAL],
    },
    cancelled: {
      type: 'final',
      entry: [{ type: 'markOutcome', params: { outcome: 'cancelled' } }, EMIT_TERMINAL],
    },
    failed: { type: 'final', entry: [{ type: 'markOutcome', params: { outcome: 'failed' } }, EMIT_TERMINAL] },
  },
});
