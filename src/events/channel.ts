/**
 * `Channel`: the one multicast primitive the event streams need — push to every subscriber, an
 * optional replay of everything pushed so far, complete once — behind a plain rxjs `Observable`.
 * It replaces `Subject`/`ReplaySubject` on the per-event path: an emit is one loop over the
 * subscribers, with no observer-array copy and no buffer trimming per value (thousands of events
 * per streamed response), and it needs only the `Observable` class of rxjs, not its whole barrel.
 * @module
 */
import type { Subscriber } from 'rxjs';
// The class alone (rxjs's `exports` map allows this path): under Node, `rxjs` itself is a
// CommonJS barrel that loads some 220 modules at import.
import { Observable } from 'rxjs/internal/Observable';

/** A multicast stream with an optional replay buffer. */
export class Channel<T> {
  /** Replaced, never mutated (copy on write): an emit loops over the list it started with. */
  #subscribers: readonly Subscriber<T>[] = [];
  /** Everything pushed so far, when the channel replays; `null` for a live-only channel. */
  readonly #buffer: T[] | null;
  #completed = false;

  /**
   * The subscriber side. A replaying channel gives each subscriber every value pushed so far,
   * in order, then the live ones; after `complete`, a new subscriber gets the replay (if any) and
   * then completion.
   */
  readonly observable: Observable<T> = new Observable<T>((subscriber) => this.#subscribe(subscriber));

  constructor(options: { replay: boolean }) {
    this.#buffer = options.replay ? [] : null;
  }

  /** Whether anyone subscribes now. */
  get observed(): boolean {
    return this.#subscribers.length > 0;
  }

  /** Pushes `value` to every subscriber (and the replay buffer); ignored after `complete`. */
  next(value: T): void {
    if (this.#completed) return;
    this.#buffer?.push(value);
    const subscribers = this.#subscribers;
    // A subscriber that unsubscribed during this loop is closed: rxjs drops what it is handed.
    for (let i = 0; i < subscribers.length; i++) subscribers[i]!.next(value);
  }

  /** Completes every subscriber; later values are ignored. Idempotent. */
  complete(): void {
    if (this.#completed) return;
    this.#completed = true;
    const subscribers = this.#subscribers;
    this.#subscribers = [];
    for (let i = 0; i < subscribers.length; i++) subscribers[i]!.complete();
  }

  #subscribe(subscriber: Subscriber<T>): (() => void) | undefined {
    const buffer = this.#buffer;
    // By index, over the live buffer: a value pushed during the replay (a subscriber reacting
    // by emitting) is replayed after the ones before it, so the order always holds.
    if (buffer) for (let i = 0; i < buffer.length && !subscriber.closed; i++) subscriber.next(buffer[i]!);
    if (this.#completed) {
      subscriber.complete();
      return undefined;
    }
    if (subscriber.closed) return undefined;
    this.#subscribers = [...this.#subscribers, subscriber];
    return () => {
      this.#subscribers = this.#subscribers.filter((s) => s !== subscriber);
    };
  }
}
