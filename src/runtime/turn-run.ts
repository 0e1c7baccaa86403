/**
 * `TurnRun`: the side channels of the turn in flight — what must not enter machine context. The
 * user's input, the streaming draft and the pending calls' arguments are conversation (snapshots
 * never hold it), the replay
 * stream and the result promise are handed to the user, and the tool-cancel signal reaches a
 * running batch without stopping it.
 * @module
 */
import type { Observable } from 'rxjs';
import type { AgentError } from '../errors.js';
import { ApprovalDesk } from '../approval/approval-desk.js';
import type { TurnPrompt } from '../prompt/session-prompt.js';
import type { BudgetLimits } from '../budget/plan-request.js';
import { NO_USAGE, type UsageTotals } from '../conversation/usage-totals.js';
import type { PreparedOutput } from '../output/final-answer.js';
import type { PartialOutput } from '../output/partial-output.js';
import { NO_SOURCED_TOOLS, type SourcedTools } from '../tools/tool-sources.js';
import { CallKeys } from '../tools/repeated-calls.js';
import type { AgentEvent, ToolCallRequest, TurnResult, UserInput } from '../types.js';

/** What one `sendMessage` asked of its turn beyond the input. */
export interface TurnOptions {
  /** The structured answer asked for, or `null`. */
  output: PreparedOutput | null;
  /** This turn's limits: the message's own and the agent's per-turn ones, the stricter of each. */
  budget: BudgetLimits;
}

/** The response being streamed: it outlives the streaming step, so a cancel can keep it. */
export class ResponseDraft {
  text = '';
  reasoning = '';
  /** Whether any delta of the current response reached the event stream. */
  streamed = false;

  /** Adds one delta. */
  add(kind: 'text_delta' | 'reasoning_delta', text: string): void {
    if (kind === 'text_delta') this.text += text;
    else this.reasoning += text;
    this.streamed = true;
  }

  /** Empties the draft (a new attempt, or the response was recorded). */
  clear(): void {
    this.text = '';
    this.reasoning = '';
    this.streamed = false;
  }
}

/** How `session.continueTurn()` was asked to finish an interrupted turn. */
export interface TurnContinuation {
  /**
   * Run again a mutating call that may already have run, instead of reporting its outcome
   * unknown: every such call, or the ones whose tool name it says `true` of.
   */
  rerunMaybeExecuted: boolean | ((toolName: string) => boolean);
  /** What a maybe-run call that is not run again reads. Default: the page was closed. */
  outcomeUnknownText?: string;
  /** A server's recovery of the turn, announced in `turn_resumed`. */
  recovery?: { attempt: number };
  /** Ends the turn at once with this error, unrun (a server's recovery whose runs are spent). */
  fail?: AgentError;
}

/** The turn in flight. */
export class TurnRun {
  /** Aborted by `CANCEL` during a tool batch: calls not yet started are skipped. */
  readonly toolCancel = new AbortController();
  readonly draft = new ResponseDraft();
  /** The tool calls of the last recorded response, arguments included, until their batch runs. */
  readonly pendingCalls = new Map<string, ToolCallRequest>();
  /** The distinct tool calls of this turn, for the repeated-call guard's counts. */
  readonly callKeys = new CallKeys();
  /** The calls of the batch that wait for the user, and where their answers go. */
  readonly approvals = new ApprovalDesk();
  /** The tool sources' tools of the current request (resolved while preparing it). */
  sourcedTools: SourcedTools = NO_SOURCED_TOOLS;
  /** Tool sources already reported unavailable in this turn. */
  readonly unavailableSources = new Set<string>();
  /** Settles when the turn has ended and is durable; never rejects. */
  readonly result: Promise<TurnResult>;
  readonly settle: (result: TurnResult) => void;

  /** What this turn's responses used so far (compaction included). */
  spent: UsageTotals = NO_USAGE;
  /** Whether a compaction the budgets could not pay for was reported (once a turn). */
  compactionOverBudget = false;
  /** The structured answer's partials as they stream; `null` without structured output. */
  partialOutput: PartialOutput | null = null;
  /** The valid structured answer, once accepted. */
  output: { value: unknown } | null = null;

  constructor(
    readonly id: string,
    /** The user's message; `null` for a continued turn (its message is already in the history). */
    readonly input: UserInput | null,
    readonly events: Observable<AgentEvent>,
    readonly prompt: TurnPrompt,
    /** Set for a turn that continues an interrupted one (`session.continueTurn()`). */
    readonly continuation: TurnContinuation | null,
    readonly options: TurnOptions,
  ) {
    let settle!: (result: TurnResult) => void;
    this.result = new Promise<TurnResult>((resolve) => (settle = resolve));
    this.settle = settle;
  }
}
