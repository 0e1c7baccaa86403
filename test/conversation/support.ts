/** Shared helpers of the conversation tests: recording a session's states, and comparing live with resumed items. */
import type { Conversation, ConversationItem, Session } from '../../src/index.js';

/** Records every state `session.conversation` emits, from the current one on. */
export function record(session: Session) {
  const states: Conversation[] = [];
  let completed = false;
  const subscription = session.conversation.subscribe({
    next: (state) => states.push(state),
    complete: () => (completed = true),
  });
  return {
    states,
    get latest(): Conversation {
      return states.at(-1)!;
    },
    get completed() {
      return completed;
    },
    stop: () => subscription.unsubscribe(),
  };
}

/** The state `session.conversation` emits first (synchronously, on subscribe). */
export function current(session: Session): Conversation {
  let state: Conversation | undefined;
  session.conversation.subscribe((s) => (state ??= s)).unsubscribe();
  return state!;
}

/** Whether an item is a notice only the live session shows (an error or a retry). */
export function isLiveOnlyNotice(item: ConversationItem): boolean {
  return item.kind === 'notice' && item.id.startsWith('event-');
}

/**
 * The items as storage keeps them: without what is never stored — reasoning, tool durations, the
 * notices of error events, and so assistant items that only showed reasoning.
 */
export function asStored(items: readonly ConversationItem[]): ConversationItem[] {
  return items.flatMap((item): ConversationItem[] => {
    if (isLiveOnlyNotice(item)) return [];
    if (item.kind === 'assistant') return item.text === '' ? [] : [{ ...item, reasoning: '' }];
    if (item.kind === 'tool') {
      const { durationMs: _ignored, ...stored } = item;
      return [stored];
    }
    return [item];
  });
}

/** A text content array. */
export const text = (value: string) => [{ type: 'text' as const, text: value }];

/** One line naming an item: its kind, key and status or level. */
export function label(item: ConversationItem): string {
  switch (item.kind) {
    case 'user':
      return `user ${item.id}`;
    case 'assistant':
      return `assistant ${item.id} ${item.status}`;
    case 'tool':
      return `tool ${item.callId} ${item.status}`;
    case 'notice':
      return `notice ${item.id} ${item.level}: ${item.text}`;
  }
}
