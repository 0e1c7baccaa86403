/**
 * `FrameRedactor`: keeps infrastructure detail out of one hosted session's frames. An `error` or
 * `retry_scheduled` event with a hidden code goes out with its code's fixed sentence, and so does
 * the notice it shows in the conversation; the detail goes to `onError`.
 *
 * A session's conversation changes before its event subscribers hear the event that changed it,
 * so a conversation whose newest item is a notice of an event not heard yet waits for that event
 * (`waitsForEvent`), which comes right after.
 * @module
 */
import type { Conversation } from '../conversation/schema.js';
import { errorNoticeText, eventNoticeId } from '../conversation/live-reducer.js';
import type { AgentError } from '../errors.js';
import type { AgentEvent } from '../types.js';
import { errorFromData, isHiddenCode, publicErrorData } from './public-error.js';

/** One session's redaction of its events and conversation. */
export class FrameRedactor {
  /** Ids of the notices whose event was heard. */
  readonly #heard = new Set<string>();
  /** Notice id → the text a client reads, for the notices of hidden errors. */
  readonly #texts = new Map<string, string>();

  constructor(private readonly report: (error: AgentError) => void) {}

  /** `event` as a client may read it; a hidden error's detail is reported. */
  event(event: AgentEvent): AgentEvent {
    const { payload } = event;
    if (payload.type !== 'error' && payload.type !== 'retry_scheduled') return event;
    const id = eventNoticeId(event);
    this.#heard.add(id);
    if (!isHiddenCode(payload.error.code)) return event;
    this.report(errorFromData(payload.error));
    const safe = { ...payload, error: publicErrorData(payload.error) };
    this.#texts.set(id, errorNoticeText(safe));
    return { ...event, payload: safe };
  }

  /** Whether `conversation` shows a notice whose event is still to come. */
  waitsForEvent(conversation: Conversation): boolean {
    const last = conversation.items.at(-1);
    return last?.kind === 'notice' && last.id.startsWith('event-') && !this.#heard.has(last.id);
  }

  /** `conversation` as a client may read it. */
  conversation(conversation: Conversation): Conversation {
    if (this.#texts.size === 0) return conversation;
    let changed = false;
    const items = conversation.items.map((item) => {
      const text = item.kind === 'notice' ? this.#texts.get(item.id) : undefined;
      if (text === undefined || item.kind !== 'notice') return item;
      changed = true;
      return { ...item, text };
    });
    return changed ? { ...conversation, items } : conversation;
  }
}
