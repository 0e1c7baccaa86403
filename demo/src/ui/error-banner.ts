/** The last failed operation (opening, sending, deleting …), until dismissed. @module */
import { h } from './dom.js';

export class ErrorBanner {
  readonly #text = h('span', {});
  readonly element: HTMLElement;

  constructor(dismiss: () => void) {
    const close = h('button', { attrs: { type: 'button', 'aria-label': 'Dismiss' } }, '\u00d7');
    close.addEventListener('click', dismiss);
    this.element = h('div', { class: 'error-banner', attrs: { role: 'alert' } }, this.#text, close);
    this.element.hidden = true;
  }

  update(error: string | null): void {
    this.element.hidden = error === null;
    this.#text.textContent = error ?? '';
  }
}
