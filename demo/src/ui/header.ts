/**
 * The top bar: which model answers (the offline one is labelled as scripted), where the agent
 * runs (this browser or the demo server), the inspect toggle, and the settings button; at phone
 * widths also the buttons that open the sessions and the hook activity over the chat.
 * @module
 */
import type { ChatState } from '../agent/chat-controller.js';
import { h } from './dom.js';

export class Header {
  readonly #model = h('span', { class: 'model-badge' });
  readonly #runsOn = h('span', { class: 'run-on-badge' });
  readonly element: HTMLElement;

  constructor(parts: {
    inspect: HTMLElement;
    openSettings(): void;
    /** Shown at phone widths only (the stylesheet hides them beside the columns). */
    panelToggles: { sessions: HTMLElement; activity: HTMLElement };
  }) {
    const settings = h('button', { class: 'settings-button', attrs: { type: 'button' } }, 'Settings');
    settings.addEventListener('click', () => parts.openSettings());
    this.element = h(
      'header',
      { class: 'top-bar' },
      parts.panelToggles.sessions,
      h('h1', {}, 'YouYou Agent', h('small', {}, ' demo')),
      this.#model,
      this.#runsOn,
      h('span', { class: 'spacer' }),
      parts.inspect,
      parts.panelToggles.activity,
      settings,
    );
  }

  update(state: ChatState, endpoint: string): void {
    this.#runsOn.dataset['runsOn'] = state.runsOn;
    this.#runsOn.textContent = state.runsOn === 'server' ? 'Agent on the server' : 'Agent in this browser';
    this.#model.dataset['offline'] = String(state.offline);
    this.#model.textContent = state.offline
      ? 'Scripted offline model \u2014 canned replies, no network'
      : `Model ${state.modelId} at ${endpoint || 'api.openai.com'}`;
  }
}
