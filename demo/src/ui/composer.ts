/**
 * The message box: Enter sends (Shift+Enter for a new line), Stop cancels the running turn.
 * @module
 */
import type { ChatState } from '../agent/chat-controller.js';
import { h } from './dom.js';

export class Composer {
  readonly #input = h('textarea', {
    attrs: {
      rows: '2',
      placeholder: 'Message the agent\u2026 (Enter to send, Shift+Enter for a new line)',
      'aria-label': 'Message',
    },
  });
  readonly #send = h('button', { class: 'primary', attrs: { type: 'submit' } }, 'Send');
  readonly #stop = h('button', { class: 'stop', attrs: { type: 'button' } }, 'Stop');
  readonly element: HTMLFormElement;

  constructor(actions: { send(text: string): void; stop(): void }) {
    this.element = h('form', { class: 'composer' }, this.#input, this.#send, this.#stop);
    this.element.addEventListener('submit', (event) => {
      event.preventDefault();
      const text = this.#input.value;
      if (text.trim() === '' || this.#send.disabled) return;
      this.#input.value = '';
      actions.send(text);
    });
    this.#input.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
        event.preventDefault();
        this.element.requestSubmit();
      }
    });
    this.#stop.addEventListener('click', () => actions.stop());
  }

  /** Send while nothing runs, Stop while a turn runs. */
  update(state: ChatState): void {
    const running = state.phase === 'running';
    this.#send.disabled = state.phase !== 'ready';
    this.#send.hidden = running;
    this.#stop.hidden = !running;
  }

  focus(): void {
    this.#input.focus();
  }
}
