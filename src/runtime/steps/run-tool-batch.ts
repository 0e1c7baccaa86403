/**
 * `runToolBatch`: one batch of tool calls through the `ToolDispatcher` (concurrent when all are
 * read-only, serial in call order otherwise), then one `tool_result` message per call in call
 * order — skipped calls included, so every `tool_call` keeps exactly one result. A call denied
 * approval still gets its start and end events, with its denial as the error result; so does a
 * call the repeated-call guard refuses (the counts of the calls executed come in and go out with the batch).
 * @module
 */
import type { ToolBatchInput, ToolBatchOutput } from '../../../machines/turn.types.js';
import type { AgentError } from '../../errors.js';
import type { ToolDispatcher } from '../../tools/tool-dispatcher.js';
import type { AgentEventPayload, Message, ToolCallRequest } from '../../types.js';
import { denialText } from '../../approval/denial-text.js';
import { countExecuted, refuseRepeats, type CallKeys } from '../../tools/repeated-calls.js';

/** What `runToolBatch` uses. */
export interface ToolBatchScope {
  tools: Pick<ToolDispatcher, 'runBatch'>;
  /** The recorded calls with their arguments (the chart passes only their ids). */
  pendingCalls: ReadonlyMap<string, ToolCallRequest>;
  /** Aborted when the turn is cancelled during the batch: calls not started are skipped. */
  cancelSignal: AbortSignal;
  /** `false` once the session's lease ran out: calls not started are skipped. */
  mayStart?(): boolean;
  emit(payload: AgentEventPayload): void;
  report(error: AgentError): void;
  append(message: Message): void;
  /** Stores (and drains) the `tool_started` marker of a mutating call before it executes. */
  markStarted(callId: string): Promise<void>;
  /** `maxRepeatedToolCalls`: how many times one call (same tool, same arguments) may be made in a turn. */
  maxRepeats: number;
  /** The turn's table of distinct calls, for the repeat counts' keys. */
  callKeys: CallKeys;
}

/** Runs the `dispatchingTools` step. */
export async function runToolBatch(scope: ToolBatchScope, input: ToolBatchInput): Promise<ToolBatchOutput> {
  // A call the side channel lacks is a bug of the runtime: the response recorded every call it sends.
  const calls = input.calls.map(({ callId }) => {
    const call = scope.pendingCalls.get(callId);
    if (!call) throw new Error(`tool call '${callId}' has no recorded arguments`);
    return call;
  });
  const denied = new Map((input.denied ?? []).map((verdict) => [verdict.callId, denialText(verdict)]));
  refuseRepeats(scope.callKeys, calls, input.repeatCounts, scope.maxRepeats, denied);
  const results = await scope.tools.runBatch(calls, {
    sessionId: input.sessionId,
    turnId: input.turnId,
    cancelSignal: scope.cancelSignal,
    ...(scope.mayStart && { mayStart: scope.mayStart }),
    emit: scope.emit,
    reportError: scope.report,
    denied,
    beforeMutatingCall: scope.markStarted,
  });
  for (const result of results) {
    scope.append({
      type: 'tool_result',
      callId: result.callId,
      content: result.output.content,
      isError: result.isError,
    });
  }
  const executed = new Set(results.filter((result) => result.executed).map((result) => result.callId));
  return { count: results.length, repeatCounts: countExecuted(scope.callKeys, calls, executed, input.repeatCounts, scope.maxRepeats) };
}
