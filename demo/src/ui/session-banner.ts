/**
 * What the open chat needs from the user after a reload or in a second tab: an answer the page
 * closed on ("Continue" / "Discard"), a chat another tab holds ("Take over"), or a chat another
 * tab took away ("Take it back"). Hidden otherwise.
 * @module
 */
import type { ChatState } from '../agent/chat-controller.js';
import { h } from './dom.js';

export interface SessionBannerActions {
  continueTurn(): void;
  discardTurn(): void;
  takeOver(): void;
}

export class SessionBanner {
  readonly #text = h('span', { class: 'session-banner-text' });
  readonly #buttons = h('span', { class: 'session-banner-buttons' });
  readonly element = h(
    'div',
    { class: 'session-banner', attrs: { role: 'status', 'aria-live': 'polite' } },
    this.#text,
    this.#buttons,
  );

  constructor(private readonly actions: SessionBannerActions) {
    this.element.hidden = true;
  }

  update(state: ChatState): void {
    const { interrupted, lock } = state;
    if (lock) {
      this.#show(
        lock.kind,
        lock.kind === 'held'
          ? 'This chat is open in another tab.'
          : 'This chat was taken over by another tab; this tab stopped writing to it.',
        [[lock.kind === 'held' ? 'Take over' : 'Take it back', 'take-over', () => this.actions.takeOver()]],
      );
    } else if (interrupted && state.phase === 'ready') {
      const what =
        interrupted.reason === 'tools_unfinished'
          ? 'The page closed while tools ran.'
          : interrupted.reason === 'awaiting_approval'
            ? 'The page closed while a tool call waited for approval.'
            : 'The page closed before the answer was finished.';
      this.#show('interrupted', what, [
        ['Continue', 'continue', () => this.actions.continueTurn()],
        ['Discard', 'discard', () => this.actions.discardTurn()],
      ]);
    } else {
      this.element.hidden = true;
      delete this.element.dataset['kind'];
    }
  }

  #show(kind: string, text: string, buttons: [label: string, name: string, run: () => void][]): void {
    this.element.hidden = false;
    this.element.dataset['kind'] = kind;
    this.#text.textContent = text;
    this.#buttons.replaceChildren(
      ...buttons.map(([label, name, run]) =>
        h('button', { class: name, attrs: { type: 'button' }, on: { click: run } }, label),
      ),
    );
  }
}
