/**
 * The Turn machine: one user message → model responses and tool batches → one terminal outcome.
 * Its states are the steps of the turn loop. Each step's work is a function in
 * `src/runtime/steps/`, run by the turn's one step runner (the child `steps`, supplied with
 * `machine.provide()`; here a placeholder that fails every step, so the chart stays pure and
 * tests drive it with a fake). A step state tells the runner to run its step on entry and to
 * stop it on exit; the runner answers `<step>.done` with the step's output or `<step>.error`
 * with what it threw, and drops the answer of a step that was stopped. One long-lived child
 * instead of an invoked actor per step: an actor per step made most of the machine's cost and
 * garbage per tool round.
 *
 * Data flows through the chart: each step's input is built from context, and what it returns is
 * assigned back by a named action. Streamed tokens never pass through it: the `streamModel` step
 * pushes them to the event stream itself and reports only the finished response.
 * @module
 */
import { assign, fromCallback, sendTo, setup } from 'xstate';
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
import type { RepeatCounts } from '../src/tools/repeated-calls.js';

export type * from './turn.types.js';

/** The steps of a turn, by name: what each takes and what it gives back. */
export interface TurnSteps {
  /** turn_start hook, skill injection, append + persist the user message. */
  startTurn: { input: StepInput; output: StartTurnOutput };
  /** turn_resumed, the interrupted turn's partial text and unfinished calls, turn_start hook. */
  resumeTurn: { input: StepInput; output: ResumeTurnOutput };
  /** Builds the prompt and estimates tokens. */
  prepareRequest: { input: PrepareInput; output: PrepareOutput };
  /** before_compact hook, micro-compaction, then summary compaction if still over. */
  compactContext: { input: CompactInput; output: CompactOutput };
  /** Projects the next request's cost against the budgets; reports `BUDGET_EXCEEDED` when it does not fit. */
  checkBudget: { input: PrepareInput; output: CheckBudgetOutput };
  /** pre_request hook, provider stream (deltas go straight to the event stream), post_request. */
  streamModel: { input: StreamInput; output: StreamOutput };
  /** Checks the structured answer of a response; answers its calls; emits `output` when valid. */
  validateOutput: { input: ValidateOutputInput; output: ValidateOutputOutput };
  /** Reports the failed attempt, on_retry hook, then the backoff wait. */
  waitToRetry: { input: RetryInput; output: RetryOutput };
  /** Validates each call's arguments, then asks the policy, the session's rules and the tool. */
  reviewToolCalls: { input: ReviewInput; output: ReviewOutput };
  /** Stores and announces the requests, then waits for every decision (or the approval timeout). */
  awaitApprovals: { input: AwaitApprovalsInput; output: AwaitApprovalsOutput };
  /** Runs one batch of tool calls and appends their results. */
  runToolBatch: { input: ToolBatchInput; output: ToolBatchOutput };
  /** Records a partial message, on_error, drains writes, memory checkpoint, turn_end hook. */
  endTurn: { input: EndTurnInput; output: EndTurnOutput };
}

/** The name of a step. */
export type TurnStepName = keyof TurnSteps;

/** What the Turn tells its step runner: run a step (with its input), or stop the one running. */
export type StepCommand =
  | { [K in TurnStepName]: { type: 'run'; step: K; input: TurnSteps[K]['input'] } }[TurnStepName]
  | { type: 'stop' };

/** What the step runner answers: a step's output, or what it threw. */
export type StepReport = {
  [K in TurnStepName]:
    { type: `${K}.done`; output: TurnSteps[K]['output'] } | { type: `${K}.error`; error: unknown };
}[TurnStepName];

/** Events the Turn machine accepts: `CANCEL` from outside, and its step runner's reports. */
export type TurnMachineEvent = { type: 'CANCEL' } | StepReport;

/** Context: ids, counters, pending calls and status — never the transcript. */
export interface TurnContext extends TurnInput {
  /** The attempt of the current request (1 for the first). */
  attempt: number;
  toolCallCount: number;
  /** How many times each call (tool and arguments) was made in this turn: the repeated-call guard's counts. */
  repeatCounts: RepeatCounts;
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

const ids = (context: TurnContext): StepInput => ({ turnId: context.turnId, sessionId: context.sessionId });

/**
 * The entry action of a step state: tells the step runner to run `step`, with the input made
 * from context. (The state's exit action, `stopStep`, stops it.)
 */
function runStep<K extends TurnStepName>(step: K, input: (context: TurnContext) => TurnSteps[K]['input']) {
  return {
    type: 'runStep',
    params: ({ context }: { context: TurnContext }) =>
      ({ type: 'run', step, input: input(context) }) as StepCommand & { type: 'run' },
  } as const;
}

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
    children: {} as { steps: 'steps' },
  },
  actors: {
    /** Runs each step on command (see the module comment); placeholder: every step fails. */
    steps: fromCallback<StepCommand, StepInput>(({ receive, sendBack }) =>
      receive((command) => {
        if (command.type === 'run') {
          sendBack({
            type: `${command.step}.error`,
            error: new Error(`step '${command.step}' was not provided`),
          });
        }
      }),
    ),
  },
  actions: {
    runStep: sendTo('steps', (_, params: StepCommand & { type: 'run' }) => params),
    stopStep: sendTo('steps', { type: 'stop' } as const),
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
    countToolCalls: assign(({ context }, params: ToolBatchOutput) => ({
      toolCallCount: context.toolCallCount + params.count,
      repeatCounts: params.repeatCounts,
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
  // The step runner lives as long as the turn.
  invoke: { id: 'steps', src: 'steps', input: ({ context }) => ids(context) },
  context: ({ input }) => ({
    ...input,
    attempt: 1,
    toolCallCount: 0,
    repeatCounts: {},
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
        // Leaving a working state stops its step, which aborts the step's signal (and with it
        // the HTTP request). `dispatchingTools` overrides this: started tools finish.
        CANCEL: { target: 'cancelling', actions: 'requestCancel' },
      },
      states: {
        // A new turn starts; one continued after a reload resumes where it was cut off.
        routing: {
          always: [{ guard: 'isContinuation', target: 'resuming' }, { target: 'starting' }],
        },
        resuming: {
          entry: runStep('resumeTurn', (context) => ids(context)),
          exit: 'stopStep',
          on: {
            'resumeTurn.done': [
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
            'resumeTurn.error': FAIL_ON_CRASH,
          },
        },
        starting: {
          entry: runStep('startTurn', (context) => ids(context)),
          exit: 'stopStep',
          on: {
            'startTurn.done': {
              target: 'preparing',
              actions: { type: 'recordDynamicSections', params: ({ event }) => ({ output: event.output }) },
            },
            'startTurn.error': FAIL_ON_CRASH,
          },
        },
        preparing: {
          entry: runStep('prepareRequest', (context) => ({
            ...ids(context),
            dynamicSections: context.dynamicSections,
          })),
          exit: 'stopStep',
          on: {
            'prepareRequest.done': [
              {
                guard: { type: 'needsCompaction', params: ({ event }) => ({ output: event.output }) },
                target: 'compacting',
              },
              { guard: 'budgeted', target: 'checkingBudget' },
              { target: 'requesting' },
            ],
            'prepareRequest.error': FAIL_ON_CRASH,
          },
        },
        compacting: {
          entry: runStep('compactContext', (context) => ({
            ...ids(context),
            dynamicSections: context.dynamicSections,
            compactionFailures: context.compactionFailures,
            maxCompactionFailures: context.maxCompactionFailures,
          })),
          exit: 'stopStep',
          on: {
            'compactContext.done': [
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
            'compactContext.error': [
              { guard: 'budgeted', target: 'checkingBudget', actions: 'countCompactionFailure' },
              { target: 'requesting', actions: 'countCompactionFailure' },
            ],
          },
        },
        checkingBudget: {
          entry: runStep('checkBudget', (context) => ({
            ...ids(context),
            dynamicSections: context.dynamicSections,
          })),
          exit: 'stopStep',
          on: {
            'checkBudget.done': [
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
            'checkBudget.error': FAIL_ON_CRASH,
          },
        },
        requesting: {
          entry: runStep('streamModel', (context) => ({
            ...ids(context),
            attempt: context.attempt,
            dynamicSections: context.dynamicSections,
            maxOutputTokens: context.maxOutputTokens,
          })),
          exit: 'stopStep',
          on: {
            'streamModel.done': [
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
            'streamModel.error': FAIL_ON_CRASH,
          },
        },
        validatingOutput: {
          entry: runStep('validateOutput', (context) => ({
            ...ids(context),
            calls: context.pendingToolCalls,
            repairsUsed: context.repairsUsed,
            repairsLeft: (context.outputRepairs ?? 0) - context.repairsUsed,
          })),
          exit: 'stopStep',
          on: {
            'validateOutput.done': [
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
            'validateOutput.error': FAIL_ON_CRASH,
          },
        },
        waitingToRetry: {
          entry: runStep('waitToRetry', (context) => ({
            ...ids(context),
            attempt: context.attempt,
            // canRetry recorded the failure before entering this state.
            error: context.lastError as AgentError,
          })),
          exit: 'stopStep',
          on: {
            'waitToRetry.done': [
              {
                guard: { type: 'retryApproved', params: ({ event }) => ({ output: event.output }) },
                target: 'requesting',
                actions: 'nextAttempt',
              },
              { target: '#turn.failing' },
            ],
            'waitToRetry.error': '#turn.failing',
          },
        },
        reviewingTools: {
          entry: runStep('reviewToolCalls', (context) => ({
            ...ids(context),
            calls: context.pendingToolCalls,
          })),
          exit: 'stopStep',
          on: {
            'reviewToolCalls.done': [
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
            'reviewToolCalls.error': FAIL_ON_CRASH,
          },
        },
        // Also entered directly, with `restoreApprovals`, by a turn continued after a reload.
        awaitingApproval: {
          entry: runStep('awaitApprovals', (context) => ({
            ...ids(context),
            awaiting: context.awaitingApprovals,
          })),
          exit: 'stopStep',
          on: {
            // No call of the batch has started: `endTurn` gives each the skipped result.
            CANCEL: {
              target: '#turn.cancelling',
              actions: [
                'requestCancel',
                { type: 'cancelPendingApprovals', params: ({ context }) => ids(context) },
              ],
            },
            'awaitApprovals.done': {
              target: 'dispatchingTools',
              actions: { type: 'recordApprovals', params: ({ event }) => ({ output: event.output }) },
            },
            'awaitApprovals.error': FAIL_ON_CRASH,
          },
        },
        dispatchingTools: {
          entry: runStep('runToolBatch', (context) => ({
            ...ids(context),
            calls: context.pendingToolCalls,
            denied: context.approvalDecisions.filter((decision) => !decision.approved),
            repeatCounts: context.repeatCounts,
          })),
          exit: 'stopStep',
          on: {
            // Started tools finish (the batch skips the rest): the step is not stopped.
            CANCEL: {
              actions: ['requestCancel', { type: 'signalToolCancel', params: ({ context }) => ids(context) }],
            },
            'runToolBatch.done': [
              {
                guard: 'cancelRequested',
                target: '#turn.cancelling',
                actions: { type: 'countToolCalls', params: ({ event }) => event.output },
              },
              {
                guard: { type: 'toolLimitReached', params: ({ event }) => ({ count: event.output.count }) },
                target: '#turn.finishing',
                actions: [
                  { type: 'countToolCalls', params: ({ event }) => event.output },
                  'finishAtToolLimit',
                  {
                    type: 'noteToolLimitReached',
                    params: ({ context }) => ({ ...ids(context), limit: context.maxToolCallsPerTurn }),
                  },
                ],
              },
              {
                target: 'preparing',
                actions: { type: 'countToolCalls', params: ({ event }) => event.output },
              },
            ],
            'runToolBatch.error': FAIL_ON_CRASH,
          },
        },
      },
    },
    finishing: {
      entry: runStep('endTurn', (context) => endTurnInput(context, 'completed')),
      exit: 'stopStep',
      on: {
        'endTurn.done': {
          target: 'completed',
          actions: { type: 'recordCheckpoint', params: ({ event }) => ({ output: event.output }) },
        },
        'endTurn.error': 'completed',
      },
    },
    cancelling: {
      entry: runStep('endTurn', (context) => endTurnInput(context, 'cancelled')),
      exit: 'stopStep',
      on: {
        'endTurn.done': 'cancelled',
        'endTurn.error': 'cancelled',
      },
    },
    failing: {
      entry: runStep('endTurn', (context) => endTurnInput(context, 'failed')),
      exit: 'stopStep',
      on: {
        'endTurn.done': 'failed',
        'endTurn.error': 'failed',
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
