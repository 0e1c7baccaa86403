/**
 * `runToolBatch`: one batch of tool calls through the `ToolDispatcher` (concurrent when all are
 * read-only, serial in call order otherwise), then one `tool_result` message per call in call
 * order — skipped calls included, so every `tool_call` keeps exactly one result.
 * @module
 */
import type { SessionRuntime, TurnState } from '../session-runtime.js';
import type { ToolCallRequest } from '../../tools/tool-dispatcher.js';

/** Runs the `dispatchingTools` step. */
export async function runToolBatch(
  rt: SessionRuntime,
  turn: TurnState,
  calls: readonly ToolCallRequest[],
): Promise<{ count: number }> {
  const results = await rt.services.tools.runBatch(calls, {
    sessionId: rt.id,
    turnId: turn.id,
    cancelSignal: turn.cancel.signal,
    emit: (payload) => rt.hub.emit(turn.id, payload),
    reportError: (error) => rt.reportError(turn.id, error),
  });
  for (const result of results) {
    rt.append({
      type: 'tool_result',
      callId: result.callId,
      content: result.output.content,
      isError: result.isError,
    });
  }
  return { count: results.length };
}
