/**
 * `resumeTurn`: the first step of a continued turn (`session.continueTurn()`), in place of
 * `startTurn`. It emits `turn_resumed`, closes the interrupted state (the partial text becomes an
 * `incomplete` assistant message; the derived results of unfinished calls leave the history),
 * fires `turn_start` again (dynamic prompt sections are never stored), then settles each
 * unfinished call: a mutating one that may have run gets "outcome unknown" unless asked to run
 * again; every other one is handed to the tool batch. The user message is not appended again.
 * @module
 */
import type { ResumeTurnOutput, StepInput } from '../../../machines/turn.types.js';
import * as Errors from '../../error-constructors.js';
import type { LoadedInterruptedTurn } from '../../persistence/resume.js';
import { TOOL_OUTCOME_UNKNOWN_TEXT } from '../../prompt/tool-result-texts.js';
import type { TurnContinuation } from '../turn-run.js';
import { rawToolCallArguments } from '../../tools/raw-arguments.js';
import type { AgentEventPayload, InterruptedTurn, Message, ToolCallRequest } from '../../types.js';
import type { HookCaller } from '../session-scope.js';

/** What `resumeTurn` uses. */
export interface ResumeTurnScope {
  /** Closes the interrupted state and returns it (what it was, and its public view). */
  takeInterrupted(): { loaded: LoadedInterruptedTurn; view: InterruptedTurn } | null;
  /** How the turn is continued (by `continueTurn()`, or by a server's recovery). */
  continuation: TurnContinuation;
  hook: HookCaller;
  emit(payload: AgentEventPayload): void;
  append(message: Message): void;
  /** Where the calls to run wait, with their arguments, for the tool batch. */
  pendingCalls: Map<string, ToolCallRequest>;
}

/** Runs the `resuming` step. */
export async function resumeTurn(
  scope: ResumeTurnScope,
  _input: StepInput,
  signal: AbortSignal,
): Promise<ResumeTurnOutput> {
  const taken = scope.takeInterrupted();
  if (!taken) throw new Error('a continued turn has no interrupted turn to resume');
  const { loaded, view } = taken;
  const { recovery, fail, rerunMaybeExecuted: rerun } = scope.continuation;
  scope.emit({ type: 'turn_resumed', reason: view.reason, ...(recovery && { recovery }) });
  if (fail) throw fail;

  const outcome = await scope.hook('turn_start', []);
  if (outcome.aborted !== null) throw Errors.requestBlocked(outcome.aborted);
  const dynamicSections = outcome.data;
  // Cancelled during the hook: the calls stay unanswered, and ending the turn answers them.
  if (signal.aborted) return { dynamicSections, toolCalls: [] };

  scope.pendingCalls.clear();
  // A batch waiting for approval has not started (nothing of it runs before every decision):
  // the whole batch goes back to the wait, its decisions so far kept.
  const approvals = loaded.approvalBatch;
  if (approvals !== null) {
    for (const call of loaded.unfinished) scope.pendingCalls.set(call.callId, requestOf(call));
    return { dynamicSections, toolCalls: approvals.calls, approvals };
  }
  const toolCalls: ResumeTurnOutput['toolCalls'] = [];
  for (const [i, call] of loaded.unfinished.entries()) {
    const { mutating } = view.unfinishedToolCalls[i]!;
    if (mutating && call.maybeExecuted && !(rerun === true || (rerun !== false && rerun(call.toolName)))) {
      answerOutcomeUnknown(scope, call, scope.continuation.outcomeUnknownText ?? TOOL_OUTCOME_UNKNOWN_TEXT);
      continue;
    }
    scope.pendingCalls.set(call.callId, requestOf(call));
    toolCalls.push({ callId: call.callId, toolName: call.toolName });
  }
  return { dynamicSections, toolCalls };
}

/** A stored call as the tool batch takes it (raw JSON arguments). */
function requestOf(call: { callId: string; toolName: string; arguments: unknown }): ToolCallRequest {
  return {
    callId: call.callId,
    toolName: call.toolName,
    arguments: rawToolCallArguments(call.arguments),
  };
}

/** A call that may have run is never run again silently: the model reads that its outcome is unknown. */
function answerOutcomeUnknown(
  scope: ResumeTurnScope,
  { callId, toolName, arguments: args }: { callId: string; toolName: string; arguments: unknown },
  content: string,
): void {
  const output = { content, isError: true };
  scope.emit({ type: 'tool_call_start', callId, toolName, arguments: args });
  scope.emit({ type: 'tool_call_end', callId, toolName, output, durationMs: 0, success: false });
  scope.append({ type: 'tool_result', callId, ...output });
}
