/**
 * The conversation of a chat that has no session yet, and the compaction threshold its context
 * meter marks.
 * @module
 */
import type { Conversation } from 'youyou-agent';

/**
 * The runtime's default compaction threshold for a context window W:
 * `min(W × 0.8, W − min(20k, W/4) − min(13k, W/10))`.
 */
export function compactionThreshold(window: number): number {
  return Math.floor(
    Math.min(window * 0.8, window - Math.min(20_000, window / 4) - Math.min(13_000, window / 10)),
  );
}

/** No items, no usage, an empty context of `contextWindow` tokens. */
export function emptyConversation(contextWindow: number): Conversation {
  return {
    items: [],
    turn: null,
    usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
    cost: null,
    context: { estimatedTokens: 0, contextWindow, compactAt: compactionThreshold(contextWindow) },
  };
}
