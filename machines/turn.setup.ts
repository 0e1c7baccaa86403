/**
 * What the Turn chart (`turn.machine.ts`) is made of: its step runner placeholder, its actions and
 * guards (declared in `setup()`, so the chart names them and `machine.provide()` may replace
 * them), and the builders its states use to run a step or end the turn. Pure: the actions only
 * assign context, and the side effects named here are no-ops the wiring provides.
 * @module
 */
import { assign, fromCallback, sendTo, setup } from 'xstate';
import type { AgentError } from '../src/errors.js';
import { addUsage, FINAL_ANSWER_TOOL } from '../src/types.js';
import type {
  ApprovalBatch,
  AwaitApprovalsOutput,
  CheckBudgetOutput,
  CompactOutput,
  EndTurnInput,
  EndTurnOutput,
  PrepareOutput,
  ResumeTurnOutput,
  RetryOutput,
  ReviewOutput,
  StartTurnOutput,
  StepCommand,
  StepInput,
  StreamOutput,
  ToolBatchOutput,
  TurnContext,
  TurnInput,
  TurnMachineEvent,
  TurnOutput,
  TurnStatus,
  TurnStepName,
  TurnSteps,
  ValidateOutputOutput,
} from './turn.types.js';

export const ids = (context: TurnContext): StepInput => ({
  turnId: context.turnId,
  sessionId: context.sessionId,
});

/**
 * The entry action of a step state: tells the step runner to run `step`, with the input made
 * from context. (The state's exit action, `stopStep`, stops it.)
 */
export function runStep<K extends TurnStepName>(
  step: K,
  input: (context: TurnContext) => TurnSteps[K]['input'],
) {
  return {
    type: 'runStep',
    params: ({ context }: { context: TurnContext }) =>
      ({ type: 'run', step, input: input(context) }) as StepCommand & { type: 'run' },
  } as const;
}

/** A step that crashed (a bug the wiring labelled) fails the turn with its error. */
export const FAIL_ON_CRASH = {
  target: '#turn.failing',
  actions: {
    type: 'recordFailure',
    params: ({ event }: { event: { error: unknown } }) => ({ error: event.error as AgentError }),
  },
} as const;

/** What a finished response records. */
export const RECORD_RESPONSE = {
  type: 'recordResponse',
  params: ({ event }: { event: { output: StreamOutput } }) => ({
    output: event.output as StreamOutput & { ok: true },
  }),
} as const;

/** What a failed attempt records. */
export const RECORD_ATTEMPT_FAILURE = {
  type: 'recordFailure',
  params: ({ event }: { event: { output: StreamOutput } }) => ({
    // Only reached once `responded` was false.
    error: (event.output as StreamOutput & { ok: false }).error,
  }),
} as const;

export const endTurnInput = (context: TurnContext, status: TurnStatus): EndTurnInput => ({
  ...ids(context),
  status,
  usage: context.usage,
  // A cancelled or completed turn has no error, even if a retried attempt failed before.
  error: status === 'failed' ? context.lastError : null,
  checkpointDue: status === 'completed' && context.checkpointDue,
});

/** The turn's outcome in a final state of the given status. */
export function turnOutput(context: TurnContext, status: TurnStatus): TurnOutput {
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
export function emitTerminal(status: TurnStatus) {
  return {
    type: 'emitTerminal',
    params: ({ context }: { context: TurnContext }) => ({ ...ids(context), ...turnOutput(context, status) }),
  } as const;
}

/** The Turn machine's setup: its types, its step runner, and every action and guard it names. */
export const turnSetup = /* @__PURE__ */ setup({
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
});
