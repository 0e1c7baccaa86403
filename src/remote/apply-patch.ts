/**
 * Applies a `patch` frame to the conversation the client shows: items replaced or grown by
 * their suffixes, every other item kept as the same object (so a renderer can skip it), and the
 * turn, totals and meter replaced when the patch carries them. A patch that does not fit the
 * conversation (an index past its end, growth of a non-assistant item, a hole) is refused. And
 * the history's splice (messages appended, or the part a compaction replaced).
 * @module
 */
import type { Conversation, ConversationItem } from '../conversation/schema.js';
import type { Message } from '../types.js';
import { ProtocolError } from './remote-http.js';
import type { ConversationPatch, MessagesSplice } from './wire.js';

/** The conversation after `patch`; throws a `ProtocolError` when the patch does not fit. */
export function applyPatch(conversation: Conversation, patch: ConversationPatch): Conversation {
  let items = conversation.items;
  if (patch.set || patch.grow || patch.length !== items.length) {
    const next: (ConversationItem | undefined)[] = items.slice(0, patch.length);
    for (const { at: index, item } of patch.set ?? []) {
      if (index >= patch.length) throw new ProtocolError(`patch sets item ${index} of ${patch.length}`);
      next[index] = item;
    }
    for (const { at: index, text, reasoning } of patch.grow ?? []) {
      const item = next[index];
      if (item?.kind !== 'assistant') throw new ProtocolError(`patch grows item ${index}, which is no answer`);
      next[index] = { ...item, text: item.text + text, reasoning: item.reasoning + reasoning };
    }
    for (let i = 0; i < patch.length; i++) {
      if (next[i] === undefined) throw new ProtocolError(`patch leaves item ${i} unknown`);
    }
    items = next as ConversationItem[];
  }
  return {
    items,
    turn: patch.turn === undefined ? conversation.turn : patch.turn,
    usage: patch.usage ?? conversation.usage,
    cost: patch.cost === undefined ? conversation.cost : patch.cost,
    context: patch.context ?? conversation.context,
  };
}

/** The history after `splice`; throws a `ProtocolError` when it does not fit. */
export function applySplice(messages: readonly Message[], splice: MessagesSplice): readonly Message[] {
  const { at, remove, insert } = splice;
  if (
    !Number.isInteger(at) ||
    !Number.isInteger(remove) ||
    at < 0 ||
    remove < 0 ||
    at + remove > messages.length
  )
    throw new ProtocolError(`patch replaces messages ${at} to ${at + remove} of ${messages.length}`);
  return [...messages.slice(0, at), ...insert, ...messages.slice(at + remove)];
}
