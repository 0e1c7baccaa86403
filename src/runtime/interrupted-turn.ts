/**
 * A resumed session's interrupted turn, between `resumeSession` and its continue or discard. The
 * history already holds a derived error result for each call that has none (so it is valid for
 * a request), and the conversation shows those and the partial text. Continuing replaces the
 * derived results by real outcomes; discarding stores them as they are. Either way the partial
 * text is stored as an `incomplete` assistant message, as a cancel would have stored it.
 * @module
 */
import { isoNow } from '../clock.js';
import { TURN_ENDED_KEY } from '../persistence/metadata-keys.js';
import { messageToEvent } from '../persistence/replay.js';
import type { LoadedInterruptedTurn } from '../persistence/resume.js';
import { INTERRUPTED_MESSAGE_NOTE } from '../prompt/templates.js';
import { ZERO_USAGE, type InterruptedTurn, type Message } from '../types.js';
import type { SessionScope } from './session-scope.js';

/** The public view of an interrupted turn. */
export function interruptedTurnView(
  loaded: LoadedInterruptedTurn,
  isMutating: (toolName: string) => boolean,
): InterruptedTurn {
  const unfinishedToolCalls = loaded.unfinished.map(({ callId, toolName, maybeExecuted }) => ({
    callId,
    toolName,
    // A `tool_started` marker is stored only before a mutating call, so it says the call's tool was
    // mutating even when no registered tool has that name (a tool source's tool, whose source has
    // not answered since the reload).
    mutating: maybeExecuted || isMutating(toolName),
    maybeExecuted,
  }));
  const { pendingApprovals } = loaded;
  return {
    turnId: loaded.turnId,
    reason:
      pendingApprovals.length > 0
        ? 'awaiting_approval'
        : unfinishedToolCalls.length > 0
          ? 'tools_unfinished'
          : 'awaiting_model',
    pendingApprovals,
    unfinishedToolCalls,
    partialText: loaded.partialText,
  };
}

/** The partial text as the message a cancel would have stored. */
function partialMessage(text: string): Message {
  return { type: 'assistant', content: [{ type: 'text', text }], status: 'incomplete' };
}

/** Shows a just-resumed session's interrupted turn in its conversation (nothing is stored). */
export function showInterruptedTurn(session: SessionScope, loaded: LoadedInterruptedTurn): void {
  session.interrupted = loaded;
  if (loaded.partialText !== null) session.conversation.appended(partialMessage(loaded.partialText));
  for (const placeholder of loaded.placeholders) session.conversation.appended(placeholder);
}

/**
 * Ends the interrupted state. `'continue'`: the derived results leave the history (the continued
 * turn gives each call its real outcome). `'discard'`: they are stored, the turn is recorded as
 * ended (cancelled) and its `turn_cancelled` is emitted. Returns what was interrupted, or `null`.
 */
export function closeInterruptedTurn(
  session: SessionScope,
  how: 'continue' | 'discard',
): LoadedInterruptedTurn | null {
  const loaded = session.interrupted;
  if (!loaded) return null;
  session.interrupted = null;
  const placeholders = new Set<Message>(loaded.placeholders);
  const kept = session.history.messages.filter((message) => !placeholders.has(message));
  if (how === 'continue') {
    session.history.replace(kept);
    // Shown last at resume (after the partial text), never stored: their positions are free again.
    session.conversation.withdrawn(loaded.placeholders.length);
  }
  else for (const placeholder of loaded.placeholders) storeShown(session, placeholder);

  if (loaded.partialText !== null) {
    storeShown(session, partialMessage(loaded.partialText));
    session.history.push({ type: 'system', content: INTERRUPTED_MESSAGE_NOTE });
    session.drafts.forget();
  }
  if (how === 'discard') {
    session.record({
      type: 'metadata',
      key: TURN_ENDED_KEY,
      value: { turnId: loaded.turnId, status: 'cancelled', usage: ZERO_USAGE },
    });
    session.events.openTurn(loaded.turnId);
    session.events.emit(loaded.turnId, { type: 'turn_cancelled' });
    session.events.closeTurn(loaded.turnId);
  }
  return loaded;
}

/** Stores a message the conversation already shows; the history gets it unless it holds it. */
function storeShown(session: SessionScope, message: Message): void {
  if (!session.history.messages.includes(message)) session.history.push(message);
  session.writes.enqueue(messageToEvent(message, isoNow(session.clock)));
}
