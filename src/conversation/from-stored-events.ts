/**
 * A resumed session's items, from its stored events: every stored message in order — not only
 * those after the last compaction, so the conversation keeps what the context let go — with the
 * interrupted-message note resume derives after an incomplete answer, one compaction notice
 * per `context_snapshot`, and each stored structured answer (`turn_output`) on its
 * `final_answer` item.
 *
 * A snapshot does not say which strategy made it; the change does. Micro-compaction only shortens
 * tool results, so the history keeps its length, the type of every message and each system
 * message's text; a summary replaces older messages with a new system message.
 * @module
 */
import * as z from 'zod/mini';
import { CONTEXT_SNAPSHOT_KEY, TURN_OUTPUT_KEY } from '../persistence/metadata-keys.js';
import { recordOf } from '../persistence/metadata-records.js';
import { eventToMessage, SnapshotSchema } from '../persistence/replay.js';
import { INTERRUPTED_MESSAGE_NOTE } from '../prompt/templates.js';
import type { Message, SessionEvent } from '../types.js';
import { applyCompaction, applyMessage, applyOutput } from './from-messages.js';
import { ConversationItems } from './items.js';

const TurnOutputRecordSchema = /* @__PURE__ */ (() =>
  z.looseObject({ turnId: z.string(), callId: z.string(), output: z.unknown() }))();

/** Which strategy turned the history `before` into the snapshot `after`. */
export function compactionStrategy(
  before: readonly Message[],
  after: readonly Message[],
): 'micro' | 'summary' {
  if (before.length !== after.length) return 'summary';
  for (let i = 0; i < after.length; i++) {
    const a = after[i]!;
    const b = before[i]!;
    if (a.type !== b.type) return 'summary';
    if (a.type === 'system' && a.content !== (b as typeof a).content) return 'summary';
  }
  return 'micro';
}

/**
 * Applies a session's stored events to `items` (new ones by default) and returns them.
 * @example
 * const items = itemsFromStoredEvents((await storage.loadSession(id)) ?? []);
 * items.snapshot(); // what `resumeSession(id).conversation` starts with
 */
export function itemsFromStoredEvents(
  events: readonly SessionEvent[],
  items = new ConversationItems(),
): ConversationItems {
  // The context as resume rebuilds it, only to tell the strategy of the next snapshot.
  let context: Message[] = [];
  for (const event of events) {
    const { payload } = event;
    if (payload.type === 'metadata') {
      if (payload.key === TURN_OUTPUT_KEY) {
        const answer = recordOf(event, TURN_OUTPUT_KEY, TurnOutputRecordSchema);
        if (answer) applyOutput(items, answer.output, answer.callId);
        continue;
      }
      if (payload.key !== CONTEXT_SNAPSHOT_KEY) continue;
      const snapshot = z.safeParse(SnapshotSchema, payload.value);
      if (!snapshot.success) continue; // resume ignores it too
      applyCompaction(items, compactionStrategy(context, snapshot.data));
      context = snapshot.data;
      continue;
    }
    const message = eventToMessage(event)!;
    applyMessage(items, message);
    context.push(message);
    if (message.type === 'assistant' && message.status === 'incomplete') {
      const note: Message = { type: 'system', content: INTERRUPTED_MESSAGE_NOTE };
      applyMessage(items, note);
      context.push(note);
    }
  }
  return items;
}
