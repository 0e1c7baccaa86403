/**
 * A turn's answer as text: the `text_delta` payloads of its (replayed) events, as an async
 * iterable that ends when the events complete — at the turn's end, whether it completed, was
 * cancelled or failed.
 * @module
 */
import type { Observable } from 'rxjs';
import type { AgentEvent } from '../types.js';

/**
 * The text deltas of `events`, from their first; each iteration subscribes anew.
 * @example
 * for await (const text of textStreamOf(turn.events)) process.stdout.write(text);
 */
export function textStreamOf(events: Observable<AgentEvent>): AsyncIterable<string> {
  return {
    async *[Symbol.asyncIterator]() {
      // What arrived and is not read yet: the deltas already sit in the turn's replay, so this
      // holds no more than that does.
      const queue: string[] = [];
      let ended = false;
      let wake: () => void = () => {};
      const subscription = events.subscribe({
        next: ({ payload }) => {
          if (payload.type === 'text_delta') queue.push(payload.text);
          wake();
        },
        error: () => ((ended = true), wake()),
        complete: () => ((ended = true), wake()),
      });
      try {
        for (let read = 0; ; ) {
          if (read < queue.length) yield queue[read++]!;
          else if (ended) return;
          else await new Promise<void>((resolve) => (wake = resolve));
        }
      } finally {
        subscription.unsubscribe();
      }
    },
  };
}
