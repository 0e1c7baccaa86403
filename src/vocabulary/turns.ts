/**
 * A turn's outcome, and what a reload finds of a turn it cut off. Above `errors.ts`: a failed
 * turn's result carries the `AgentError`.
 * @module
 */
import type { AgentError } from '../errors.js';
import type { TokenUsage } from './usage.js';

/**
 * The final outcome of a turn, as `turn.result` resolves it; `T` is the structured answer's type
 * when the turn asked for one (`sendMessage(input, { output: { schema } })`).
 */
export interface TurnResult<T = unknown> {
  status: 'completed' | 'cancelled' | 'failed';
  usage: TokenUsage;
  /**
   * USD of the turn's responses (compaction included): a server-reported cost where there is one,
   * else the model's pricing; `null` when no response had either.
   */
  cost: number | null;
  /** The validated structured answer: set iff the turn asked for one and completed with it. */
  output?: T;
  /** Set when `status` is `failed`. */
  error?: AgentError;
}

/** A tool call waiting for a human decision (`turn.approve` / `turn.deny`). */
export interface PendingApproval {
  callId: string;
  toolName: string;
  /** The validated arguments. */
  arguments: unknown;
  /** ISO 8601: when the approval was requested. */
  requestedAt: string;
}

/** A call of an interrupted turn that has no result yet. */
export interface UnfinishedToolCall {
  callId: string;
  toolName: string;
  /** The tool is registered as `mutating`. */
  mutating: boolean;
  /** A mutating call that had started when the page closed: it may have taken effect. */
  maybeExecuted: boolean;
}

/**
 * A turn a reload (or a crash) cut off: started, never ended. `session.continueTurn()` finishes
 * it under the same id; `session.discardInterruptedTurn()` closes it as it is.
 */
export interface InterruptedTurn {
  turnId: string;
  /** What the turn was waiting for: a human decision, the model, or its tools. */
  reason: 'awaiting_approval' | 'awaiting_model' | 'tools_unfinished';
  pendingApprovals: readonly PendingApproval[];
  unfinishedToolCalls: readonly UnfinishedToolCall[];
  /** The text the model had streamed when the page closed (with a storage that keeps drafts). */
  partialText: string | null;
}
