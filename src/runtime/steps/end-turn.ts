/**
 * `endTurn`, for every outcome: calls the turn recorded but never ran get their result, a partial
 * response becomes an `incomplete` assistant message
 * (plus the interrupted-message note, live only — resume derives it again), `on_error` for a
 * failure, the `turn_ended` marker, pending writes drained and the streaming draft cleared (so
 * `turn.result` means durable), the memory checkpoint when it is due, and `turn_end` with the
 * status.
 * @module
 */
import type { EndTurnInput, EndTurnOutput } from '../../../machines/turn.types.js';
import { MEMORY_CHECKPOINT_KEY, TURN_ENDED_KEY } from '../../persistence/metadata-keys.js';
import { INTERRUPTED_MESSAGE_NOTE } from '../../prompt/templates.js';
import { TOOL_CALL_NOT_RUN_TEXT, TOOL_CALL_SKIPPED_TEXT } from '../../prompt/tool-result-texts.js';
import type { Message, SessionEventPayload } from '../../types.js';
import type { HookCaller } from '../session-scope.js';
import type { ResponseDraft } from '../turn-run.js';

/** What `endTurn` uses. */
export interface EndTurnScope {
  draft: ResponseDraft;
  history: { readonly messages: readonly Message[] };
  append(message: Message, persist?: boolean): void;
  record(payload: SessionEventPayload): void;
  /** Resolves once every write handed to storage so far has settled. */
  drainWrites(): Promise<void>;
  /** Removes the turn's stored streaming draft, if one was saved (bounded). */
  clearDraft(): Promise<void>;
  /** Extracts memories from the history; `null` when memory is off. */
  extractMemories: ((signal: AbortSignal) => Promise<void>) | null;
  hook: HookCaller;
  /** USD the turn's responses cost so far; `null` when none had a cost. */
  turnCost(): number | null;
}

/** Runs the `finishing` / `cancelling` / `failing` step. */
export async function endTurn(
  scope: EndTurnScope,
  input: EndTurnInput,
  signal: AbortSignal,
): Promise<EndTurnOutput> {
  answerUnansweredCalls(scope, input.status);
  const { draft } = scope;
  if (input.status !== 'completed' && draft.streamed) {
    scope.append({
      type: 'assistant',
      content: draft.text ? [{ type: 'text', text: draft.text }] : [],
      status: 'incomplete',
    });
    scope.append({ type: 'system', content: INTERRUPTED_MESSAGE_NOTE }, false);
    draft.clear();
  }
  if (input.status === 'failed' && input.error) await scope.hook('on_error', { error: input.error });
  const checkpointed = input.checkpointDue && scope.extractMemories !== null;
  if (checkpointed) {
    // The record goes first, so a resume counts turns from this checkpoint even if it fails.
    scope.record({ type: 'metadata', key: MEMORY_CHECKPOINT_KEY, value: { turnId: input.turnId } });
  }
  scope.record({
    type: 'metadata',
    key: TURN_ENDED_KEY,
    value: {
      turnId: input.turnId,
      status: input.status,
      usage: input.usage,
      ...(scope.turnCost() !== null && { cost: scope.turnCost() }),
    },
  });
  await Promise.all([scope.drainWrites(), scope.clearDraft()]);
  if (checkpointed) await scope.extractMemories!(signal);
  await scope.hook('turn_end', { status: input.status, usage: input.usage, error: input.error ?? undefined });
  return { checkpointed };
}

/**
 * Every `tool_call` gets exactly one `tool_result`, whatever state a cancel or failure hit: a
 * response is recorded with its calls before its tools run, so a turn that ends in between
 * (a cancel from a `usage` subscriber or during `post_request`, a failing hook) would otherwise
 * leave calls the next request could not send. Each gets the skipped result, in call order.
 */
function answerUnansweredCalls(scope: EndTurnScope, status: EndTurnInput['status']): void {
  const answered = new Set<string>();
  const unanswered: string[] = [];
  const messages = scope.history.messages;
  // The turn's calls are at the end of the history: walk back to the last user message.
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i]!;
    if (message.type === 'user') break;
    if (message.type === 'tool_result') answered.add(message.callId);
    else if (message.type === 'tool_call' && !answered.has(message.callId))
      unanswered.unshift(message.callId);
  }
  const text = status === 'cancelled' ? TOOL_CALL_SKIPPED_TEXT : TOOL_CALL_NOT_RUN_TEXT;
  for (const callId of unanswered)
    scope.append({ type: 'tool_result', callId, content: text, isError: true });
}
