/**
 * The view of one session's conversation, cut from the session's parts: its events, its history's
 * token estimate and its model's window.
 *
 * It lives in `runtime/`, not `conversation/`, because it reads a session's parts; and it takes the
 * narrow {@link ConversationParts} rather than the session scope, so that the scope may import it.
 * @module
 */
import type { ContextManager } from '../context/context-manager.js';
import { compactionThreshold } from '../context/token-estimate.js';
import { ConversationView } from '../conversation/conversation-view.js';
import type { UsageTotals } from '../conversation/usage-totals.js';
import type { EventHub } from '../events/event-hub.js';
import type { SessionPrompt } from '../prompt/session-prompt.js';
import type { ModelInfo, SessionEvent } from '../types.js';
import type { AgentServices } from './agent-services.js';

/** The parts of a session its conversation view reads (the session scope has them all). */
export interface ConversationParts {
  readonly services: Pick<AgentServices, 'config' | 'toolSpecsChars'>;
  readonly model: ModelInfo;
  readonly events: Pick<EventHub, 'emitted'>;
  readonly spent: UsageTotals;
  readonly history: Pick<ContextManager, 'estimateTokens'>;
  readonly prompt: Pick<SessionPrompt, 'stable'>;
}

/** Creates the view of `session`; `stored` are its stored events when it is resumed. */
export function conversationOfSession(
  session: ConversationParts,
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
