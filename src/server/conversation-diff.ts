/**
 * What changed between two states of a conversation, as a `patch` frame: the items that are not
 * the same objects any more (a conversation keeps unchanged items' identity, so this is a
 * reference check per item). An answer item that a streamed delta grew is sent as that delta's
 * text alone: given the delta, the check compares lengths only, so a delta costs its own length
 * however long the answer is (reading the answer's text would flatten and copy it each time).
 * @module
 */
import type { Conversation, ConversationItem } from '../conversation/schema.js';
import type { ConversationPatch } from '../remote/wire.js';

/** A streamed delta: the text and reasoning an answer item grew by. */
export interface StreamedDelta {
  text: string;
  reasoning: string;
}

/**
 * The patch from `before` to `after`, or `null` when nothing the client shows changed. With
 * `delta` (the change is a streamed delta's), an answer item grown by exactly its length is sent
 * as that growth; any other changed item is sent whole.
 */
export function diffConversation(
  before: Conversation,
  after: Conversation,
  delta: StreamedDelta | null = null,
): ConversationPatch | null {
  const patch: ConversationPatch = { length: after.items.length };
  let changed = before.items.length !== after.items.length;
  if (before.items !== after.items) {
    for (let i = 0; i < after.items.length; i++) {
      const was = before.items[i];
      const now = after.items[i]!;
      if (was === now) continue;
      changed = true;
      if (delta !== null && was !== undefined && grewBy(was, now, delta)) {
        (patch.grow ??= []).push({ at: i, text: delta.text, reasoning: delta.reasoning });
        // One delta grows one item.
        delta = null;
      } else (patch.set ??= []).push({ at: i, item: now });
    }
  }
  if (before.turn !== after.turn) patch.turn = after.turn;
  if (before.usage !== after.usage) patch.usage = after.usage;
  if (before.cost !== after.cost) patch.cost = after.cost;
  if (before.context !== after.context) patch.context = after.context;
  changed ||= 'turn' in patch || 'usage' in patch || 'cost' in patch || 'context' in patch;
  return changed ? patch : null;
}

/**
 * Whether `now` is `was` grown by `delta`: the same answer, in the same status, longer by exactly
 * the delta. Only the live reducer changes a streaming answer, and it only appends a delta.
 */
function grewBy(was: ConversationItem, now: ConversationItem, delta: StreamedDelta): boolean {
  if (was.kind !== 'assistant' || now.kind !== 'assistant') return false;
  if (was.id !== now.id || was.status !== now.status || now.status !== 'streaming') return false;
  return (
    now.text.length === was.text.length + delta.text.length &&
    now.reasoning.length === was.reasoning.length + delta.reasoning.length
  );
}
