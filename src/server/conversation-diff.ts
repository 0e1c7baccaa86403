/**
 * What changed between two states of a conversation, as a `patch` frame: the items that are not
 * the same objects any more (a conversation keeps unchanged items' identity, so this is a
 * reference check per item), with an assistant item that only grew sent as its suffixes.
 * @module
 */
import type { Conversation, ConversationItem } from '../conversation/schema.js';
import type { ConversationPatch } from '../remote/wire.js';

/** The patch from `before` to `after`, or `null` when nothing the client shows changed. */
export function diffConversation(before: Conversation, after: Conversation): ConversationPatch | null {
  const patch: ConversationPatch = { length: after.items.length };
  let changed = before.items.length !== after.items.length;
  if (before.items !== after.items) {
    for (let i = 0; i < after.items.length; i++) {
      const was = before.items[i];
      const now = after.items[i]!;
      if (was === now) continue;
      changed = true;
      const grown = was === undefined ? null : growth(was, now);
      if (grown) (patch.grow ??= []).push({ at: i, text: grown[0], reasoning: grown[1] });
      else (patch.set ??= []).push({ at: i, item: now });
    }
  }
  if (before.turn !== after.turn) patch.turn = after.turn;
  if (before.usage !== after.usage) patch.usage = after.usage;
  if (before.cost !== after.cost) patch.cost = after.cost;
  if (before.context !== after.context) patch.context = after.context;
  changed ||= 'turn' in patch || 'usage' in patch || 'cost' in patch || 'context' in patch;
  return changed ? patch : null;
}

/** The text and reasoning suffixes when `now` is `was` grown by them (a streamed delta). */
function growth(was: ConversationItem, now: ConversationItem): [string, string] | null {
  if (was.kind !== 'assistant' || now.kind !== 'assistant') return null;
  if (was.id !== now.id || was.status !== now.status) return null;
  if (!now.text.startsWith(was.text) || !now.reasoning.startsWith(was.reasoning)) return null;
  return [now.text.slice(was.text.length), now.reasoning.slice(was.reasoning.length)];
}
