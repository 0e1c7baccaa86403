/**
 * `ConversationView`: one session's renderable conversation, kept up to date from the messages
 * the session appends and the events it emits, and published as an `Observable<Conversation>`.
 * A resumed session's view starts from its stored events.
 *
 * Cost: one state per session. A change rebuilds only what it touches — a streamed delta
 * rebuilds its own item — and each emission copies the items array once (references only,
 * O(items)); unchanged items, the context meter and the totals keep their identity. The meter is
 * measured again only when the history or the usage baseline changed, never for a delta.
 * @module
 */
// The classes alone (rxjs's `exports` map allows these paths): under Node, `rxjs` itself is a
// CommonJS barrel that loads some 220 modules at import.
import { Observable } from 'rxjs/internal/Observable';
import { Channel } from '../events/channel.js';
import type { AgentEvent, Message, SessionEvent } from '../types.js';
import { measureContext, type ContextMeterSource } from './context-meter.js';
import { applyMessage } from './from-messages.js';
import { itemsFromStoredEvents } from './from-stored-events.js';
import type { ConversationItems } from './items.js';
import { applyEvent } from './live-reducer.js';
import type { Conversation } from './schema.js';
import type { UsageTotals } from './usage-totals.js';

/** What a view reads. */
export interface ConversationSources extends ContextMeterSource {
  /** The stored events of a resumed session; empty for a new one. */
  stored: readonly SessionEvent[];
  /** Every event of the session as it is emitted; completes when the session closes. */
  events: Observable<AgentEvent>;
  /** The session's usage and cost so far, resumed ones included (kept by the session). */
  totals: () => UsageTotals;
}

/** One session's conversation. */
export class ConversationView {
  /** The current conversation on subscribe, then one per change; completes when the session closes. */
  readonly states: Observable<Conversation>;
  readonly #items: ConversationItems;
  readonly #meter: ContextMeterSource;
  /** The states after the current one, live only: `states` gives a new subscriber the current one. */
  readonly #changes = new Channel<Conversation>({ replay: false });
  #state: Conversation;
  #turn: Conversation['turn'] = null;
  /** The calls of the turn that wait for approval. */
  #awaiting = new Set<string>();
  #contextChanged = false;
  /** Whether something changed since {@link ConversationView.#state} was made. */
  #stale = false;
  #closed = false;
  #emitting = false;
  #pending = false;

  readonly #totals: () => UsageTotals;

  constructor({ stored, events, totals, ...meter }: ConversationSources) {
    this.#meter = meter;
    this.#totals = totals;
    this.#items = itemsFromStoredEvents(stored);
    const { usage, cost } = totals();
    this.#state = {
      items: this.#items.snapshot(),
      turn: null,
      usage,
      cost,
      context: measureContext(meter, null),
    };
    this.states = new Observable<Conversation>((subscriber) => {
      this.#refresh();
      if (this.#closed) {
        // A closed session still shows its last state.
        subscriber.next(this.#state);
        subscriber.complete();
        return undefined;
      }
      // Subscribed first, so a state published while the subscriber takes the current one (it
      // may send a message from its handler) reaches it too, after the current one.
      const live = this.#changes.observable.subscribe(subscriber);
      subscriber.next(this.#state);
      return live;
    });
    events.subscribe({ next: (event) => this.#onEvent(event), complete: () => this.#close() });
  }

  /** The conversation now. */
  get current(): Conversation {
    this.#refresh();
    return this.#state;
  }

  /** A message joined the session's history. */
  appended(message: Message): void {
    applyMessage(this.#items, message);
    this.#contextChanged = true;
    this.#publish();
  }

  /**
   * The last `count` messages shown left the history unstored (a reload's derived results, when
   * the turn is continued): the next message takes the position the first of them had, as a
   * resume of the stored session numbers it.
   */
  withdrawn(count: number): void {
    this.#items.nextMessage -= count;
  }

  /**
   * A turn was started; `ended` settles with its result. The turn shows until then — not only
   * until its terminal event — because only then does the session take the next message.
   */
  turnStarted(turnId: string, ended: Promise<unknown>): void {
    const turn: Conversation['turn'] = { id: turnId, status: 'running' };
    this.#turn = turn;
    this.#awaiting = new Set();
    this.#publish();
    void ended.then(() => {
      if (this.#turn?.id !== turnId) return;
      this.#turn = null;
      this.#publish();
    });
  }

  #onEvent(event: AgentEvent): void {
    applyEvent(this.#items, event);
    const { payload } = event;
    if (payload.type === 'usage') {
      // The totals moved too (the session counts them first); the estimate now starts from the
      // reported count.
      this.#contextChanged = true;
    } else if (payload.type === 'context_compacted') {
      this.#contextChanged = true;
    } else if (payload.type === 'approval_requested' || payload.type === 'approval_resolved') {
      this.#approvalChanged(payload.callId, payload.type === 'approval_requested');
    }
    this.#publish();
  }

  /** The turn is `awaiting_approval` while any of its calls waits, `running` otherwise. */
  #approvalChanged(callId: string, waits: boolean): void {
    if (waits) this.#awaiting.add(callId);
    else this.#awaiting.delete(callId);
    const turn = this.#turn;
    if (turn === null) return;
    const status = this.#awaiting.size > 0 ? 'awaiting_approval' : 'running';
    if (turn.status !== status) this.#turn = { id: turn.id, status };
  }

  /**
   * Takes in a change. With no subscriber, the new state is only made when asked for
   * (`current`, a subscription): a session nobody renders skips building one per streamed delta.
   */
  #publish(): void {
    this.#stale = true;
    if (this.#changes.observed && this.#refresh()) this.#emit();
  }

  /** Makes the current state; whether it differs from the one before. */
  #refresh(): boolean {
    if (!this.#stale) return false;
    this.#stale = false;
    const previous = this.#state;
    const items = this.#items.snapshot();
    const context = this.#contextChanged ? measureContext(this.#meter, previous.context) : previous.context;
    this.#contextChanged = false;
    const { usage, cost } = this.#totals();
    if (
      items === previous.items &&
      context === previous.context &&
      this.#turn === previous.turn &&
      usage === previous.usage &&
      cost === previous.cost
    ) {
      return false;
    }
    this.#state = { items, turn: this.#turn, usage, cost, context };
    return true;
  }

  /**
   * Emits the latest state. A subscriber that changes the conversation while it is being told
   * (e.g. it cancels the turn) gets the next state after every subscriber got this one, so all
   * see the states in the same order.
   */
  #emit(): void {
    if (this.#emitting) {
      this.#pending = true;
      return;
    }
    this.#emitting = true;
    try {
      do {
        this.#pending = false;
        this.#changes.next(this.#state);
      } while (this.#pending);
    } finally {
      this.#emitting = false;
    }
  }

  #close(): void {
    this.#closed = true;
    this.#changes.complete();
  }
}
