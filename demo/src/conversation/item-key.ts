/**
 * The key the chat view files a conversation item under.
 * @module
 */
import type { ConversationItem } from 'youyou-agent';

/** Unique within a conversation and stable across its states (and a resume). */
export function itemKey(item: ConversationItem): string {
  return item.kind === 'tool' ? `tool:${item.callId}` : `${item.kind}:${item.id}`;
}
