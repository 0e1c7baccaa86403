/**
 * The Turn machine: one user message → model responses and tool batches → one terminal outcome.
 * Its states are the steps of the turn loop. Each step's work is a named actor implemented in
 * `src/runtime/steps/` and supplied with `machine.provide()`; here they are placeholders that
 * reject, so the chart stays pure and tests can drive it with fakes.
 *
 * Data flows through the chart: each step's input is built from context, and what it returns is
 * assigned back by a named action. Streamed tokens never pass through it: the `streamModel` actor
 * pushes them to the event stream itself and reports only the finished response.
 * @module
 */
import { assign, fromPromise, setup } from 'xstate';
import type { AgentError } from '../src/errors.js';
import { addUsage, FINAL_ANSWER_TOOL, ZERO_USAGE, type TokenUsage, type ToolCallRef } from '../src/types.js';
import type {
  ApprovalBatch,
  ApprovalVerdict,
  AwaitApprovalsInput,
  AwaitApprovalsOutput,
  AwaitedApproval,
  CheckBudgetOutput,
  CompactInput,
  CompactOutput,
  EndTurnInput,
  EndTurnOutput,
  PrepareInput,
  PrepareOutput,
  ResumeTurnOutput,
  RetryInput,
  RetryOutput,
  ReviewInput,
  ReviewOutput,
  StartTurnOutput,
  StepInput,
  StreamInput,
  StreamOutput,
  ToolBatchInput,
  ToolBatchOutput,
  TurnInput,
  TurnOutput,
  TurnStatus,
  ValidateOutputInput,
  ValidateOutputOutput,
} from './turn.types.js';

export type * from './turn.types.js';

/** Events the Turn machine accepts from outside. */
export type TurnMachineEvent = { type: 'CANCEL' };

/** Context: ids, counters, pending calls and status — never the transcript. */
export interface TurnContext extends TurnInput {
  /** The attempt of the current request (1 for the first). */
  attempt: number;
  toolCallCount: number;
  pendingToolCalls: ToolCallRef[];
  /** Calls of the pending batch that wait for the user. */
  awaitingApprovals: AwaitedApproval[];
  /** Approval decisions on calls of the pending batch. */
  approvalDecisions: ApprovalVerdict[];
  /** Dynamic prompt sections from `turn_start`, used by every request of the turn. */
  dynamicSections: string[];
  usage: TokenUsage;
  finishReason: string;
  lastError: AgentError | null;
  cancelRequested: boolean;
  /** Whether `endTurn` ran the memory checkpoint. */
  checkpointed: boolean;
  /** Repair rounds a structured answer took so far. */
  repairsUsed: number;
  /** The budget's cap on the next response's tokens; `null` for none. */
  maxOutputTokens: number | null;
}

const notProvided = (name: string) => () => Promise.reject(new Error(`actor '${name}' was not provided`));

const ids = (context: TurnContext): StepInput => ({ turnId: context.turnId, sessionId: context.sessionId });

/** A step that crashed (a bug the wiring labelled) fails the turn with its error. */
const FAIL_ON_CRASH = {
  target: '#turn.failing',
  actions: {
    type: 'recordFailure',
    params: ({ event }: { event: { error: unknown } }) => ({ error: event.error as AgentError }),
  },
} as const;

/** What a finished response records. */
const RECORD_RESPONSE = {
  type: 'recordResponse',
  params: ({ event }: { event: { output: StreamOutput } }) => ({
    output: event.output as StreamOutput & { ok: true },
  }),
} as const;

/** What a failed attempt records. */
const RECORD_ATTEMPT_FAILURE = {
  type: 'recordFailure',
  params: ({ event }: { event: { output: StreamOutput } }) => ({
    // Only reached once `responded` was false.
    error: (event.output as StreamOutput & { ok: false }).error,
  }),
} as const;

const endTurnInput = (context: TurnContext, status: TurnStatus): EndTurnInput => ({
  ...ids(context),
  status,
  usage: context.usage,
  // A cancelled or completed turn has no error, even if a retried attempt failed before.
  error: status === 'failed' ? context.lastError : null,
  checkpointDue: status === 'completed' && context.checkpointDue,
});

/**
 * Turn machine: `working` (starting or resuming → preparing → compacting → requesting ⇄
 * reviewing tools (when a call may need a decision) → awaiting approval → dispatching tools) →
 * ending → final.
 */
export const turnMachine = /* @__PURE__ */ setup({
  types: {
    input: {} as TurnInput,
    context: {} as TurnContext,
    events: {} as TurnMachineEvent,
    output: {} as TurnOutput,
    children: {} as {
      startTurn: 'startTurn';
      resumeTurn: 'resumeTurn';
      prepareRequest: 'prepareRequest';
      compactContext: 'compactContext';
      streamModel: 'streamModel';
      waitToRetry: 'waitToRetry';
      reviewToolCalls: 'reviewToolCalls';
      awaitApprovals: 'awaitApprovals';
      runToolBatch: 'runToolBatch';
      endTurn: 'endTurn';
      checkBudget: 'checkBudget';
      validateOutput: 'validateOutput';
    },
  },
  actors: {
    /** turn_start hook, skill injection, append + persist the user message. */
    startTurn: fromPromise<StartTurnOutput, StepInput>(notProvided('startTurn')),
    /** turn_resumed, the interrupted turn's partial text and unfinished calls, turn_start hook. */
    resumeTurn: fromPromise<ResumeTurnOutput, StepInput>(notProvided('resumeTurn')),
    /** Builds the prompt and estimates tokens. */
    prepareRequest: fromPromise<PrepareOutput, PrepareInput>(notProvided('prepareRequest')),
    /** before_compact hook, micro-compaction, then summary compaction if still over. */
    compactContext: fromPromise<CompactOutput, CompactInput>(notProvided('compactContext')),
    /** pre_request hook, provider stream (deltas go straight to the event stream), post_request. */
    streamModel: fromPromise<StreamOutput, StreamInput>(notProvided('streamModel')),
    /** Reports the failed attempt, on_retry hook, then the backoff wait. */
    waitToRetry: fromPromise<RetryOutput, RetryInput>(notProvided('waitToRetry')),
    /** Validates each call's arguments, then asks the policy, the session's rules and the tool. */
    reviewToolCalls: fromPromise<ReviewOutput, ReviewInput>(notProvided('reviewToolCalls')),
    /** Stores and announces the requests, then waits for every decision (or the approval timeout). */
    awaitApprovals: fromPromise<AwaitApprovalsOutput, AwaitApprovalsInput>(notProvided('awaitApprovals')),
    /** Runs one batch of tool calls and appends their results. */
    runToolBatch: fromPromise<ToolBatchOutput, ToolBatchInput>(notProvided('runToolBatch')),
    /** Records a partial message, on_error, drains writes, memory checkpoint, turn_end hook. */
    endTurn: fromPromise<EndTurnOutput, EndTurnInput>(notProvided('endTurn')),
    /** Projects the next request's cost against the budgets; reports `BUDGET_EXCEEDED` when it does not fit. */
    checkBudget: fromPromise<CheckBudgetOutput, PrepareInput>(notProvided('checkBudget')),
    /** Checks the structured answer of a response; answers its calls; emits `output` when valid. */
    validateOutput: fromPromise<ValidateOutputOutput, ValidateOutputInput>(notProvided('validateOutput')),
  },
  actions: {
    requestCancel: assign({ cancelRequested: true }),
    recordDynamicSections: assign((_, params: { output: StartTurnOutput }) => ({
      dynamicSections: params.output.dynamicSections,
    })),
    recordResumed: assign((_, params: { output: ResumeTurnOutput }) => ({
      dynamicSections: params.output.dynamicSections,
      pendingToolCalls: params.output.toolCalls,
    })),
    recordCompaction: assign(({ context }, params: { output: CompactOutput }) => ({
      usage: addUsage(context.usage, params.output.usage),
      compactionFailures: params.output.compactionFailures,
    })),
    /** A compaction step that crashed counts as a failed compaction. */
    countCompactionFailure: assign(({ context }) => ({ compactionFailures: context.compactionFailures + 1 })),
    recordResponse: assign(({ context }, params: { output: StreamOutput & { ok: true } }) => ({
      pendingToolCalls: params.output.toolCalls,
      finishReason: params.output.finishReason,
      usage: addUsage(context.usage, params.output.usage),
      attempt: 1,
    })),
    recordFailure: assign((_, params: { error: AgentError }) => ({ lastError: params.error })),
    nextAttempt: assign(({ context }) => ({ attempt: context.attempt + 1, lastError: null })),
    /** The batch is done: its calls are counted, its approval state is spent. */
    countToolCalls: assign(({ context }, params: { count: number }) => ({
      toolCallCount: context.toolCallCount + params.count,
      pendingToolCalls: [],
      awaitingApprovals: [],
      approvalDecisions: [],
    })),
    finishAtToolLimit: assign({ finishReason: 'max_tool_calls' }),
    recordBudget: assign((_, params: { output: CheckBudgetOutput & { allowed: true } }) => ({
      maxOutputTokens: params.output.maxOutputTokens,
    })),
    finishAtBudget: assign({ finishReason: 'budget_exceeded' }),
    countRepair: assign(({ context }) => ({ repairsUsed: context.repairsUsed + 1 })),
    /** The turn ends with its structured answer, not with the `tool_calls` of the response. */
    finishWithOutput: assign({ finishReason: 'stop' }),
    recordOutputFailure: assign((_, params: { output: ValidateOutputOutput }) => ({
      lastError: (params.output as ValidateOutputOutput & { verdict: 'rejected' }).error,
    })),
    recordReview: assign((_, params: { output: ReviewOutput }) => ({
      awaitingApprovals: params.output.awaiting,
      approvalDecisions: params.output.decided,
    })),
    /** Enters a batch that waits for approval as it was (a turn continued after a reload). */
    restoreApprovals: assign((_, params: { batch: ApprovalBatch }) => ({
      pendingToolCalls: params.batch.calls,
      awaitingApprovals: params.batch.awaiting,
      approvalDecisions: params.batch.decided,
    })),
    recordApprovals: assign(({ context }, params: { output: AwaitApprovalsOutput }) => ({
      awaitingApprovals: [],
      approvalDecisions: [...context.approvalDecisions, ...params.output.decided],
    })),
    /** Resolves the calls still waiting as decided by the cancel (side channel). */
    cancelPendingApprovals: (_, _params: StepInput) => {},
    recordCheckpoint: assign((_, params: { output: EndTurnOutput }) => ({
      checkpointed: params.output.checkpointed,
    })),
    /** Tells the running tool batch to skip calls not yet started (side channel). */
    signalToolCancel: (_, _params: StepInput) => {},
    /** Appends the tool-limit note and reports `MAX_TOOL_CALLS_EXCEEDED` (non-fatal). */
    noteToolLimitReached: (_, _params: StepInput & { limit: number }) => {},
    /** Emits the turn's one terminal event and settles `turn.result`. */
    emitTerminal: (_, _params: TurnOutput & StepInput) => {},
  },
  guards: {
    needsCompaction: ({ context }, params: { output: PrepareOutput }) =>
      params.output.needsCompaction && context.compactionFailures < context.maxCompactionFailures,
    hasToolCalls: (_, params: { output: StreamOutput }) =>
      params.output.ok && params.output.toolCalls.length > 0,
    responded: (_, params: { output: StreamOutput }) => params.output.ok,
    canRetry: ({ context }, params: { output: StreamOutput }) =>
      !params.output.ok &&
      params.output.error.retryable &&
      !params.output.hadOutput &&
      context.attempt <= context.maxRetries,
    retryApproved: (_, params: { output: RetryOutput }) => params.output.retry,
    cancelRequested: ({ context }) => context.cancelRequested,
    /** Tool calls that some policy, rule, tool or source may want decided first. */
    callsToReview: ({ context }, params: { output: StreamOutput }) =>
      context.approvalsPossible && params.output.ok && params.output.toolCalls.length > 0,
    approvalsPending: (_, params: { output: ReviewOutput }) => params.output.awaiting.length > 0,
    isContinuation: ({ context }) => context.continued,
    hasCallsToRun: (_, params: { output: ResumeTurnOutput }) => params.output.toolCalls.length > 0,
    awaitsApprovals: (_, params: { output: ResumeTurnOutput }) => (params.output.approvals ?? null) !== null,
    toolLimitReached: ({ context }, params: { count: number }) =>
      context.toolCallCount + params.count >= context.maxToolCallsPerTurn,
    budgeted: ({ context }) => context.budgeted,
    budgetAllows: (_, params: { output: CheckBudgetOutput }) => params.output.allowed,
    /**
     * A turn that asks for structured output checks a response that called `final_answer`, or
     * that called no tool at all (an answer in text is a failed attempt).
     */
    answersForOutput: ({ context }, params: { output: StreamOutput }) =>
      context.outputRepairs !== null &&
      params.output.ok &&
      (params.output.toolCalls.length === 0 ||
        params.output.toolCalls.some((call) => call.toolName === FINAL_ANSWER_TOOL)),
    outputAccepted: (_, params: { output: ValidateOutputOutput }) => params.output.verdict === 'accepted',
    outputRepairable: (_, params: { output: ValidateOutputOutput }) => params.output.verdict === 'repair',
  },
}).createMachine({
  id: 'turn',
  context: ({ input }) => ({
    ...input,
    attempt: 1,
    toolCallCount: 0,
    pendingToolCalls: [],
    awaitingApprovals: [],
    approvalDecisions: [],
    dynamicSections: [],
    usage: ZERO_USAGE,
    finishReason: '',
    lastError: null,
    cancelRequested: false,
    checkpointed: false,
    repairsUsed: 0,
    maxOutputTokens: null,
  }),
  initial: 'working',
  // Each final state names its status in its own `output`; the rest comes from context.
  output: ({ context, event }) => turnOutput(context, (event.output as { status: TurnStatus }).status),
  states: {
    working: {
      initial: 'routing',
      on: {
        // Leaving a working state stops its actor, which aborts the actor's signal (and with it
        // the HTTP request). `dispatchingTools` overrides this: started tools finish.
        CANCEL: { target: 'cancelling', actions: 'requestCancel' },
      },
      states: {
        // A new turn starts; one continued after a reload resumes where it was cut off.
        routing: {
          always: [{ guard: 'isContinuation', target: 'resuming' }, { target: 'starting' }],
        },
        resuming: {
          invoke: {
            id: 'resumeTurn',
            src: 'resumeTurn',
            input: ({ context }) => ids(context),
            onDone: [
              {
                guard: { type: 'awaitsApprovals', params: ({ event }) => ({ output: event.output }) },
                target: 'awaitingApproval',
                actions: [
                  { type: 'recordResumed', params: ({ event }) => ({ output: event.output }) },
                  // Only reached with a batch (the guard): the whole batch, its decisions so far.
                  { type: 'restoreApprovals', params: ({ event }) => ({ batch: event.output.approvals! }) },
                ],
              },
              {
                guard: { type: 'hasCallsToRun', params: ({ event }) => ({ output: event.output }) },
                target: 'dispatchingTools',
                actions: { type: 'recordResumed', params: ({ event }) => ({ output: event.output }) },
              },
              {
                target: 'preparing',
                actions: { type: 'recordResumed', params: ({ event }) => ({ output: event.output }) },
              },
            ],
            onError: FAIL_ON_CRASH,
          },
        },
        starting: {
          invoke: {
            id: 'startTurn',
            src: 'startTurn',
            input: ({ context }) => ids(context),
            onDone: {
              target: 'preparing',
              actions: { type: 'recordDynamicSections', params: ({ event }) => ({ output: event.output }) },
            },
            onError: FAIL_ON_CRASH,
          },
        },
        preparing: {
          invoke: {
            id: 'prepareRequest',
            src: 'prepareRequest',
            input: ({ context }) => ({ ...ids(context), dynamicSections: context.dynamicSections }),
            onDone: [
              {
                guard: { type: 'needsCompaction', params: ({ event }) => ({ output: event.output }) },
                target: 'compacting',
              },
              { guard: 'budgeted', target: 'checkingBudget' },
              { target: 'requesting' },
            ],
            onError: FAIL_ON_CRASH,
          },
        },
        compacting: {
          invoke: {
            id: 'compactContext',
            src: 'compactContext',
            input: ({ context }) => ({
              ...ids(context),
              dynamicSections: context.dynamicSections,
              compactionFailures: context.compactionFailures,
              maxCompactionFailures: context.maxCompactionFailures,
            }),
            onDone: [
              {
                guard: 'budgeted',
                target: 'checkingBudget',
                actions: { type: 'recordCompaction', params: ({ event }) => ({ output: event.output }) },
              },
              {
                target: 'requesting',
                actions: { type: 'recordCompaction', params: ({ event }) => ({ output: event.output }) },
              },
            ],
            // Compaction is an optimisation: even a crashed step lets the request go out.
            onError: [
              { guard: 'budgeted', target: 'checkingBudget', actions: 'countCompactionFailure' },
              { target: 'requesting', actions: 'countCompactionFailure' },
            ],
          },
        },
        checkingBudget: {
          invoke: {
            id: 'checkBudget',
            src: 'checkBudget',
            input: ({ context }) => ({ ...ids(context), dynamicSections: context.dynamicSections }),
            onDone: [
              {
                guard: { type: 'budgetAllows', params: ({ event }) => ({ output: event.output }) },
                target: 'requesting',
                actions: {
                  type: 'recordBudget',
                  params: ({ event }) => ({ output: event.output as CheckBudgetOutput & { allowed: true } }),
                },
              },
              // No request: the turn ends here, completed (the step reported BUDGET_EXCEEDED).
              { target: '#turn.finishing', actions: 'finishAtBudget' },
            ],
            onError: FAIL_ON_CRASH,
          },
        },
        requesting: {
          invoke: {
            id: 'streamModel',
            src: 'streamModel',
            input: ({ context }) => ({
              ...ids(context),
              attempt: context.attempt,
              dynamicSections: context.dynamicSections,
              maxOutputTokens: context.maxOutputTokens,
            }),
            onDone: [
              {
                guard: { type: 'answersForOutput', params: ({ event }) => ({ output: event.output }) },
                target: 'validatingOutput',
                actions: RECORD_RESPONSE,
              },
              {
                guard: { type: 'callsToReview', params: ({ event }) => ({ output: event.output }) },
                target: 'reviewingTools',
                actions: RECORD_RESPONSE,
              },
              // Nothing could ask for a decision: the batch runs without a review.
              {
                guard: { type: 'hasToolCalls', params: ({ event }) => ({ output: event.output }) },
                target: 'dispatchingTools',
                actions: RECORD_RESPONSE,
              },
              {
                guard: { type: 'responded', params: ({ event }) => ({ output: event.output }) },
                target: '#turn.finishing',
                actions: RECORD_RESPONSE,
              },
              {
                guard: { type: 'canRetry', params: ({ event }) => ({ output: event.output }) },
                target: 'waitingToRetry',
                actions: RECORD_ATTEMPT_FAILURE,
              },
              {
                target: '#turn.failing',
                actions: RECORD_ATTEMPT_FAILURE,
              },
            ],
            onError: FAIL_ON_CRASH,
          },
        },
        validatingOutput: {
          invoke: {
            id: 'validateOutput',
            src: 'validateOutput',
            input: ({ context }) => ({
              ...ids(context),
              calls: context.pendingToolCalls,
              repairsUsed: context.repairsUsed,
              repairsLeft: (context.outputRepairs ?? 0) - context.repairsUsed,
            }),
            onDone: [
              {
                guard: { type: 'outputAccepted', params: ({ event }) => ({ output: event.output }) },
                target: '#turn.finishing',
                actions: 'finishWithOutput',
              },
              {
                guard: { type: 'outputRepairable', params: ({ event }) => ({ output: event.output }) },
                target: 'preparing',
                actions: 'countRepair',
              },
              {
                target: '#turn.failing',
                actions: { type: 'recordOutputFailure', params: ({ event }) => ({ output: event.output }) },
              },
            ],
            onError: FAIL_ON_CRASH,
          },
        },
        waitingToRetry: {
          invoke: {
            id: 'waitToRetry',
            src: 'waitToRetry',
            input: ({ context }) => ({
              ...ids(context),
              attempt: context.attempt,
              // canRetry recorded the failure before entering this state.
              error: context.lastError as AgentError,
            }),
            onDone: [
              {
                guard: { type: 'retryApproved', params: ({ event }) => ({ output: event.output }) },
                target: 'requesting',
                actions: 'nextAttempt',
              },
              { target: '#turn.failing' },
            ],
            onError: '#turn.failing',
          },
        },
        reviewingTools: {
          invoke: {
            id: 'reviewToolCalls',
            src: 'reviewToolCalls',
            input: ({ context }) => ({ ...ids(context), calls: context.pendingToolCalls }),
            onDone: [
              {
                guard: { type: 'approvalsPending', params: ({ event }) => ({ output: event.output }) },
                target: 'awaitingApproval',
                actions: { type: 'recordReview', params: ({ event }) => ({ output: event.output }) },
              },
              {
                target: 'dispatchingTools',
                actions: { type: 'recordReview', params: ({ event }) => ({ output: event.output }) },
              },
            ],
            onError: FAIL_ON_CRASH,
          },
        },
        // Also entered directly, with `restoreApprovals`, by a turn continued after a reload.
        awaitingApproval: {
          on: {
            // No call of the batch has started: `endTurn` gives each the skipped result.
            CANCEL: {
              target: '#turn.cancelling',
              actions: [
                'requestCancel',
                { type: 'cancelPendingApprovals', params: ({ context }) => ids(context) },
              ],
            },
          },
          invoke: {
            id: 'awaitApprovals',
            src: 'awaitApprovals',
            input: ({ context }) => ({ ...ids(context), awaiting: context.awaitingApprovals }),
            onDone: {
              target: 'dispatchingTools',
              actions: { type: 'recordApprovals', params: ({ event }) => ({ output: event.output }) },
            },
            onError: FAIL_ON_CRASH,
          },
        },
        dispatchingTools: {
          on: {
            CANCEL: {
              actions: ['requestCancel', { type: 'signalToolCancel', params: ({ context }) => ids(context) }],
            },
          },
          invoke: {
            id: 'runToolBatch',
            src: 'runToolBatch',
            input: ({ context }) => ({
              ...ids(context),
              calls: context.pendingToolCalls,
              denied: context.approvalDecisions.filter((decision) => !decision.approved),
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
                  'finishAtToolLimit',
                  {
                    type: 'noteToolLimitReached',
                    params: ({ context }) => ({ ...ids(context), limit: context.maxToolCallsPerTurn }),
                  },
                ],
              },
              {
                target: 'preparing',
                actions: { type: 'countToolCalls', params: ({ event }) => ({ count: event.output.count }) },
              },
            ],
            onError: FAIL_ON_CRASH,
          },
        },
      },
    },
    finishing: {
      invoke: {
        id: 'endTurn',
        src: 'endTurn',
        input: ({ context }) => endTurnInput(context, 'completed'),
        onDone: {
          target: 'completed',
          actions: { type: 'recordCheckpoint', params: ({ event }) => ({ output: event.output }) },
        },
        onError: 'completed',
      },
    },
    cancelling: {
      invoke: {
        id: 'endTurn',
        src: 'endTurn',
        input: ({ context }) => endTurnInput(context, 'cancelled'),
        onDone: 'cancelled',
        onError: 'cancelled',
      },
    },
    failing: {
      invoke: {
        id: 'endTurn',
        src: 'endTurn',
        input: ({ context }) => endTurnInput(context, 'failed'),
        onDone: 'failed',
        onError: 'failed',
      },
    },
    completed: { type: 'final', output: { status: 'completed' }, entry: emitTerminal('completed') },
    cancelled: { type: 'final', output: { status: 'cancelled' }, entry: emitTerminal('cancelled') },
    failed: { type: 'final', output: { status: 'failed' }, entry: emitTerminal('failed') },
  },
});

/** The turn's outcome in a final state of the given status. */
function turnOutput(context: TurnContext, status: TurnStatus): TurnOutput {
  return {
    status,
    usage: context.usage,
    finishReason:
      status === 'completed' ? context.finishReason : status === 'cancelled' ? 'cancelled' : 'error',
    error: status === 'failed' ? context.lastError : null,
    compactionFailures: context.compactionFailures,
    checkpointed: context.checkpointed,
  };
}

/** The entry action of a final state: emits the terminal event of that status. */
function emitTerminal(status: TurnStatus) {
  return {
    type: 'emitTerminal',
    params: ({ context }: { context: TurnContext }) => ({ ...ids(context), ...turnOutput(context, status) }),
  } as const;
}
