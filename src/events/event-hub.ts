/**
 * The event stream of one session: numbers every event (`sequence` from 1, +1 per event, across
 * turns), publishes it live on `session.events`, and keeps each turn's events in a replay buffer
 * so `turn.events` gives a late subscriber the whole turn. Deltas come here straight from the
 * streaming actor — no machine transition per token.
 * @module
 */
import { Observable } from 'rxjs/internal/Observable';
import { isoNow, systemClock, type Clock } from '../clock.js';
import type { AgentEvent, AgentEventPayload } from '../types.js';
import { Channel } from './channel.js';

const MAX_EARLY_EVENTS = 100;

/** One session's event stream. */
export class EventHub {
  #sequence = 0;
  readonly #live = new Channel<AgentEvent>({ replay: false });
  readonly #turns = new Map<string, Channel<AgentEvent>>();
  /**
   * Events emitted before anyone subscribed (while the session was opening, e.g. a failed memory
   * load): handed to the first subscriber, so they are not lost before the user holds a handle.
   */
  #early: AgentEvent[] | null = [];
  /** Only events of the opening step are kept for the first subscriber; after it, the stream is live. */
  #opening = true;
  /** Every event of the session, live (no replay); completes when the session closes. */
  readonly events: Observable<AgentEvent> = new Observable<AgentEvent>((subscriber) => {
    const early = this.#early;
    this.#early = null;
    for (const event of early ?? []) subscriber.next(event);
    return this.#live.observable.subscribe(subscriber);
  });
  /** Every event as it is emitted, for the session's own views: no hand-off of early events. */
  readonly emitted: Observable<AgentEvent> = this.#live.observable;

  readonly #sessionId: string;
  readonly #clock: Clock;

  constructor(sessionId: string, clock: Clock = systemClock) {
    this.#sessionId = sessionId;
    this.#clock = clock;
  }

  /** Ends the opening step: later events are live only. */
  opened(): void {
    this.#opening = false;
  }

  /** Opens the replay buffer of a turn; its events are kept until the turn ends. */
  openTurn(turnId: string): Observable<AgentEvent> {
    const channel = new Channel<AgentEvent>({ replay: true });
    this.#turns.set(turnId, channel);
    return channel.observable;
  }

  /** Whether `turnId`'s stream is open: the turn started and has not emitted its terminal event. */
  isOpen(turnId: string): boolean {
    return this.#turns.has(turnId);
  }

  /**
   * Publishes one event; `turnId` null for events outside a turn. An event of a turn that already
   * ended (a late report of a step stopped by a cancel) is not published: nothing follows a
   * turn's terminal event. Returns the event, or `null` when it was not published.
   */
  emit(turnId: string | null, payload: AgentEventPayload): AgentEvent | null {
    let turn: Channel<AgentEvent> | undefined;
    if (turnId !== null) {
      turn = this.#turns.get(turnId);
      if (turn === undefined) return null;
    }
    const event: AgentEvent = {
      sessionId: this.#sessionId,
      turnId,
      timestamp: isoNow(this.#clock),
      sequence: ++this.#sequence,
      payload,
    };
    turn?.next(event);
    if (this.#opening && this.#early && this.#early.length < MAX_EARLY_EVENTS) this.#early.push(event);
    this.#live.next(event);
    return event;
  }

  /** Completes a turn's stream (after its terminal event) and drops it from the hub. */
  closeTurn(turnId: string): void {
    const channel = this.#turns.get(turnId);
    if (!channel) return;
    this.#turns.delete(turnId);
    channel.complete();
  }

  /** Completes the session stream; later emits go nowhere. */
  complete(): void {
    for (const id of [...this.#turns.keys()]) this.closeTurn(id);
    this.#live.complete();
  }
}
