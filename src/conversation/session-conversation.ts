/**
 * The view of one session's conversation, cut from the session's parts: its events, its history's
 * token estimate and its model's window.
 * @module
 */
import { compactionThreshold } from '../context/token-estimate.js';
import type { SessionScope } from '../runtime/session-scope.js';
import type { SessionEvent } from '../types.js';
import { ConversationView } from './conversation-view.js';

/** Creates the view of `session`; `stored` are its stored events when it is resumed. */
export function conversationOfSession(
  session: SessionScope,
  stored: readonly SessionEvent[],
): ConversationView {
  const { compaction } = session.services.config;
  const window = session.model.contextWindow;
  return new ConversationView({
    stored,
    events: session.events.emitted,
    totals: () => session.spent,
    // The stable part of the system prompt stands for the whole until the provider reports usage;
    // from then on the estimate starts from the reported count.
    estimateTokens: () =>
      session.history.estimateTokens(session.prompt.stable().length, session.services.toolSpecsChars),
    contextWindow: window,
    compactAt: compaction.enabled ? compactionThreshold(window, compaction) : window,
  });
}
