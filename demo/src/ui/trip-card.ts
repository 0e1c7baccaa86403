/**
 * The trip card: a structured answer shown as it streams. Each `output_delta` of the turn
 * redraws the card from the partial plan (unvalidated, fields may be missing); the turn's
 * `output` marks it done with the validated plan.
 * @module
 */
import type { AgentEvent } from 'youyou-agent';
import type { ChatTurn } from '../agent/chat-agent.js';
import type { PartialTripPlan } from '../parts/trip-plan.js';
import { h, setChildren } from './dom.js';

export class TripCard {
  readonly #title = h('h3', { class: 'trip-title' });
  readonly #days = h('ol', { class: 'trip-days' });
  readonly #button: HTMLButtonElement;
  readonly element: HTMLElement;

  constructor(planTrip: () => void) {
    this.#button = h(
      'button',
      { class: 'plan-trip', attrs: { type: 'button' }, on: { click: planTrip } },
      'Plan a trip',
    );
    this.element = h(
      'section',
      { class: 'trip-card', attrs: { 'data-status': 'idle', 'aria-live': 'polite' } },
      this.#button,
      this.#title,
      this.#days,
    );
  }

  /** Follows one structured turn: partials while it streams, then the validated plan. */
  follow(turn: ChatTurn): void {
    this.#show({}, 'streaming');
    turn.events.subscribe(({ payload }: AgentEvent) => {
      if (payload.type === 'output_delta') this.#show(payload.partial as PartialTripPlan, 'streaming');
      else if (payload.type === 'output') this.#show(payload.output as PartialTripPlan, 'done');
    });
    void turn.result.then(({ status }) => {
      if (status !== 'completed') this.element.dataset['status'] = status;
    });
  }

  /** Enabled only while nothing runs. */
  setEnabled(enabled: boolean): void {
    this.#button.disabled = !enabled;
  }

  #show(plan: PartialTripPlan, status: 'streaming' | 'done'): void {
    this.element.dataset['status'] = status;
    this.#title.textContent = plan.title ?? '';
    setChildren(
      this.#days,
      ...(plan.days ?? []).map((d) =>
        h('li', { class: 'trip-day' }, h('b', {}, d.day === undefined ? '' : `Day ${d.day}: `), d.plan ?? ''),
      ),
    );
  }
}
