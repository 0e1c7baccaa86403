/**
 * A turn's answer as text: the `text_delta` payloads of its (replayed) events, as an async
 * iterable that ends when the events complete — at the turn's end, whether it completed, was
 * cancelled or failed.
 * @module
 */
import type { Observable } from 'rxjs';
import type { AgentEvent } from '../types.js';

/**
 * The text deltas of `events`, from their first; it subscribes when first read.
 * @example
 * for await (const text of textStreamOf(turn.events)) process.stdout.write(text);
 */
export async function* textStreamOf(events: Observable<AgentEvent>): AsyncGenerator<string> {
  // What arrived and is not read yet: the deltas already sit in the turn's replay, so this holds
  // no more than that does. `null` marks the end.
  const queue: (string | null)[] = [];
  let wake = () => {};
  const push = (text: string | null) => (queue.push(text), wake());
  const subscription = events.subscribe({
    next: ({ payload }) => payload.type === 'text_delta' && push(payload.text),
    error: () => push(null),
    complete: () => push(null),
  });
  try {
    for (let read = 0; ; read++) {
      while (read === queue.length) await new Promise<void>((resolve) => (wake = resolve));
      const text = queue[read];
      if (text === null) return;
      yield text!;
    }
  } finally {
    subscription.unsubscribe();
  }
}
