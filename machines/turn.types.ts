/**
 * What flows in and out of the Turn machine and each of its steps. The chart builds every step's
 * input from its context and assigns the step's output back, so these types are the data flow
 * of a turn, readable without the implementations.
 * @module
 */
import type { AgentError } from '../src/errors.js';
import type { TokenUsage, ToolCallRef } from '../src/types.js';
import type { BudgetVerdict } from '../src/budget/check-request.js';
import type { RepeatCounts } from '../src/tools/repeated-calls.js';

/** How a turn ended. */
export type TurnStatus = 'completed' | 'cancelled' | 'failed';

/** What the Turn machine starts with: ids, limits, and the session's counters it may change. */
export interface TurnInput {
  turnId: string;
  sessionId: string;
  /** Retries after the first attempt of one request. */
  maxRetries: number;
  /** Tool calls allowed in this turn. */
  maxToolCallsPerTurn: number;
  /** Compaction failures in a row so far in the session (the breaker's count). */
  compactionFailures: number;
  /** The breaker opens at this many failures in a row: no more compaction in the session. */
  maxCompactionFailures: number;
  /** Whether this turn, if it completes, is a memory checkpoint. */
  checkpointDue: boolean;
  /** Repair rounds allowed for a structured answer; `null` when the turn asks for none. */
  outputRepairs: number | null;
  /** Whether a budget applies to this turn (then every request is checked first). */
  budgeted: boolean;
  /**
   * Whether a call of this turn may wait for a decision: an approval policy, a session rule, a
   * tool with `needsApproval` or a tool source. Without any, the review of each batch is skipped.
   */
  approvalsPossible: boolean;
  /** The turn continues one a reload interrupted (same id): it resumes instead of starting. */
  continued: boolean;
}

/** The outcome of a turn, and the session counters it changed. */
export interface TurnOutput {
  status: TurnStatus;
  usage: TokenUsage;
  finishReason: string;
  error: AgentError | null;
  compactionFailures: number;
  /** Whether the memory checkpoint ran. */
  checkpointed: boolean;
}

/** Which turn of which session: every step's input starts with it. */
export interface StepInput {
  turnId: string;
  sessionId: string;
}

/** Output of `startTurn`. */
export interface StartTurnOutput {
  /** The dynamic prompt sections `turn_start` produced. */
  dynamicSections: string[];
}

/** Output of `resumeTurn`. */
export interface ResumeTurnOutput {
  /** The dynamic prompt sections `turn_start` produced. */
  dynamicSections: string[];
  /** The interrupted turn's calls to run now (their arguments wait in the side channel). */
  toolCalls: ToolCallRef[];
  /** The batch that still waits for approval: the turn re-enters `awaitingApproval` with it. */
  approvals?: ApprovalBatch | null;
}

/** Input of `prepareRequest`. */
export interface PrepareInput extends StepInput {
  dynamicSections: string[];
}
/** Output of `prepareRequest`. */
export interface PrepareOutput {
  /** Whether the next request is over the compaction threshold. */
  needsCompaction: boolean;
}

/** Input of `compactContext`. */
export interface CompactInput extends StepInput {
  dynamicSections: string[];
  compactionFailures: number;
  maxCompactionFailures: number;
}
/** Output of `compactContext`. */
export interface CompactOutput {
  /** Usage of the summary request, when one was made. */
  usage: TokenUsage | null;
  /** The breaker's count after this attempt (0 after a success). */
  compactionFailures: number;
}

/** Output of `checkBudget`: whether the next request fits the budgets, with how many output tokens. */
export type CheckBudgetOutput = BudgetVerdict;

/** Input of `streamModel`. */
export interface StreamInput extends StepInput {
  attempt: number;
  dynamicSections: string[];
  /** The budget's cap on the response's tokens; `null` or absent for none. */
  maxOutputTokens?: number | null;
}
/**
 * Output of `streamModel`: one finished model response, or the failure of the attempt and
 * whether output was already streamed (then a retry would replay it, so the turn fails instead).
 */
export type StreamOutput =
  | { ok: true; toolCalls: ToolCallRef[]; finishReason: string; usage: TokenUsage | null }
  // The calls' arguments reach `runToolBatch` through the turn's side channel, not this output.
  | { ok: false; error: AgentError; hadOutput: boolean };

/** Input of `validateOutput`: the response's calls and the repair rounds so far. */
export interface ValidateOutputInput extends StepInput {
  calls: ToolCallRef[];
  repairsUsed: number;
  repairsLeft: number;
}
/**
 * Output of `validateOutput`: the structured answer was accepted, gets a repair round, or is
 * rejected for good (`OUTPUT_INVALID`).
 */
export type ValidateOutputOutput =
  { verdict: 'accepted' } | { verdict: 'repair' } | { verdict: 'rejected'; error: AgentError };

/** Input of `waitToRetry`. */
export interface RetryInput extends StepInput {
  /** The attempt that failed. */
  attempt: number;
  error: AgentError;
}
/** Output of `waitToRetry`: `false` when an `on_retry` hook stopped the retries. */
export interface RetryOutput {
  retry: boolean;
}

/** Who decided a call's approval. */
export type ApprovalDecider = 'user' | 'policy' | 'timeout' | 'cancel';

/** A decision on one call of the batch. */
export interface ApprovalVerdict {
  callId: string;
  approved: boolean;
  by: ApprovalDecider;
  /** Why it was denied, when the decider said (shown to the model). */
  reason?: string;
}

/** A call of the batch that waits for the user. */
export interface AwaitedApproval {
  callId: string;
  toolName: string;
  /** When the request was stored; `null` until it is (a reloaded request already is). */
  requestedAt: string | null;
}

/** Input of `reviewToolCalls`. */
export interface ReviewInput extends StepInput {
  calls: ToolCallRef[];
}
/**
 * Output of `reviewToolCalls`: the calls that wait for the user, and the decisions already made
 * (by the policy or a session rule). A call in neither needs no approval, or has invalid
 * arguments (it gets its error result when the batch runs).
 */
export interface ReviewOutput {
  awaiting: AwaitedApproval[];
  decided: ApprovalVerdict[];
}

/**
 * A batch that waits for approval, as `awaitingApproval` needs it: every call of the batch, the
 * ones still waiting, and the decisions made so far. The review builds it; a turn continued after
 * a reload enters `awaitingApproval` with the one its stored events describe.
 */
export interface ApprovalBatch {
  calls: ToolCallRef[];
  awaiting: AwaitedApproval[];
  decided: ApprovalVerdict[];
}

/** Input of `awaitApprovals`. */
export interface AwaitApprovalsInput extends StepInput {
  awaiting: AwaitedApproval[];
}
/** Output of `awaitApprovals`: one decision per awaited call, by the user or the timeout. */
export interface AwaitApprovalsOutput {
  decided: ApprovalVerdict[];
}

/** Input of `runToolBatch`. */
export interface ToolBatchInput extends StepInput {
  calls: ToolCallRef[];
  /** Calls of the batch that were denied: each gets its denial as an error result, and never runs. */
  denied?: ApprovalVerdict[];
  /** How many times each call (tool and arguments) was made in the turn so far: the repeated-call guard's counts. */
  repeatCounts: RepeatCounts;
}
/** Output of `runToolBatch`. */
export interface ToolBatchOutput {
  /** Calls in the batch (skipped ones included: each got a result). */
  count: number;
  /** `repeatCounts` with this batch's calls added (refused and denied ones do not count). */
  repeatCounts: RepeatCounts;
}

/** Input of `endTurn`. */
export interface EndTurnInput extends StepInput {
  status: TurnStatus;
  usage: TokenUsage;
  error: AgentError | null;
  /** Run the memory checkpoint (only ever set for a completed turn). */
  checkpointDue: boolean;
}
/** Output of `endTurn`. */
export interface EndTurnOutput {
  checkpointed: boolean;
}

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
