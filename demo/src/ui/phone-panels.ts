/**
 * At phone widths the sessions and the hook activity do not fit beside the chat: each becomes a
 * panel over it (the sessions a drawer, the activity a sheet), one at a time, opened from the
 * header and closed by its own Close button, the backdrop or Escape. Which one is open is
 * `body[data-panel]`; the stylesheet alone decides that a panel is one (at desktop widths the
 * toggles are hidden and the columns show as before).
 * @module
 */
import { h } from './dom.js';

/** The panels that can cover the chat. */
export type PhonePanel = 'sessions' | 'activity';

export class PhonePanels {
  /** Covers the chat behind an open panel; a tap on it closes the panel. */
  readonly backdrop = h('div', { class: 'panel-backdrop', attrs: { 'aria-hidden': 'true' } });

  constructor() {
    this.backdrop.addEventListener('click', () => this.close());
    document.addEventListener('keydown', (event) => {
      if (event.key === 'Escape' && this.open !== null) this.close();
    });
  }

  /** The open panel, `null` when none is. */
  get open(): PhonePanel | null {
    const panel = document.body.dataset['panel'];
    return panel === 'sessions' || panel === 'activity' ? panel : null;
  }

  /** A header button that opens `panel` (or closes it when it is open). */
  toggle(panel: PhonePanel, label: string): HTMLButtonElement {
    const button = h(
      'button',
      { class: `panel-toggle ${panel}-toggle`, attrs: { type: 'button', 'aria-expanded': 'false' } },
      label,
    );
    button.addEventListener('click', () => (this.open === panel ? this.close() : this.show(panel)));
    return button;
  }

  /** The Close button inside `panel`. */
  closeButton(panel: PhonePanel): HTMLButtonElement {
    return h(
      'button',
      {
        class: 'panel-close',
        attrs: { type: 'button', 'aria-label': `Close the ${panel}` },
        on: { click: () => this.close() },
      },
      'Close',
    );
  }

  show(panel: PhonePanel): void {
    document.body.dataset['panel'] = panel;
    this.#sync();
  }

  close(): void {
    delete document.body.dataset['panel'];
    this.#sync();
  }

  #sync(): void {
    for (const button of document.querySelectorAll<HTMLElement>('.panel-toggle')) {
      button.setAttribute('aria-expanded', String(button.classList.contains(`${this.open}-toggle`)));
    }
  }
}
