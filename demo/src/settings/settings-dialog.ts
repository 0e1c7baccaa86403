/**
 * The settings dialog: where the agent runs (this browser, or the demo server when `npm start`
 * serves the page), base URL, API key, model and context window of an OpenAI-compatible
 * endpoint, the dev server's model when it has one, or none for the offline model.
 * @module
 */
import { h } from '../ui/dom.js';
import { agentServer, serverModel, type EndpointSettings } from './settings.js';

export class SettingsDialog {
  readonly #baseURL = h('input', {
    attrs: { name: 'baseURL', type: 'url', placeholder: 'https://api.openai.com/v1' },
  });
  readonly #apiKey = h('input', {
    attrs: {
      name: 'apiKey',
      type: 'password',
      autocomplete: 'off',
      placeholder: 'sk-\u2026 (empty for servers that need none)',
    },
  });
  readonly #model = h('input', { attrs: { name: 'model', placeholder: 'gpt-4o-mini' } });
  readonly #contextWindow = h('input', {
    attrs: { name: 'contextWindow', type: 'number', min: '1000', step: '1000' },
  });
  readonly #mcpServers = h('textarea', {
    attrs: { name: 'mcpServers', rows: '2', placeholder: 'http://127.0.0.1:5174/mcp (one URL per line)' },
  });
  readonly #sessionBudget = h('input', {
    attrs: { name: 'sessionBudgetUsd', type: 'number', min: '0', step: 'any', placeholder: '0 = no budget' },
  });
  readonly #runOn = {
    browser: h('input', { attrs: { type: 'radio', name: 'runOn', value: 'browser' } }),
    server: h('input', { attrs: { type: 'radio', name: 'runOn', value: 'server' } }),
  };
  /** The settings the dialog was opened with (what the form does not edit is kept from them). */
  #opened: EndpointSettings | null = null;
  readonly element: HTMLDialogElement;

  constructor(onSave: (settings: EndpointSettings) => void) {
    const field = (label: string, input: HTMLInputElement | HTMLTextAreaElement) =>
      h('label', {}, h('span', {}, label), input);
    const save = h('button', { class: 'primary', attrs: { type: 'submit', value: 'save' } }, 'Save');
    const offline = h('button', { attrs: { type: 'button' } }, 'Use the offline model');
    const server = serverModel();
    // Only a dev server started with a key has a model of its own to offer.
    const useServer =
      server &&
      h(
        'button',
        { class: 'server-model', attrs: { type: 'button' } },
        'Use the server\u2019s model (key stays on the server)',
      );
    const cancel = h('button', { attrs: { type: 'button' } }, 'Cancel');
    // Only the dev server (`npm start`) has an agent server to run on.
    const runOn =
      agentServer() &&
      h(
        'fieldset',
        { class: 'run-on' },
        h('legend', {}, 'Run on'),
        h('label', {}, this.#runOn.browser, h('span', {}, 'this browser')),
        h('label', {}, this.#runOn.server, h('span', {}, 'the server')),
        h(
          'p',
          { class: 'hint' },
          'On the server, the agent runs in the demo\u2019s dev server and keeps this browser\u2019s sessions in PostgreSQL there. It has the calculator, the clock and the notes (kept on the server); the MCP tools, the session budget and the endpoint below stay with an agent in this browser. Its model is the server\u2019s own, when the server has a key, or the offline one.',
        ),
      );
    const form = h(
      'form',
      { attrs: { method: 'dialog' } },
      ...(runOn ? [runOn] : []),
      h('h2', {}, 'Model endpoint'),
      h(
        'p',
        { class: 'hint' },
        'Any OpenAI-compatible Chat Completions server that allows requests from this page (CORS). Leave the base URL empty for the scripted offline model.',
      ),
      field('Base URL', this.#baseURL),
      field('API key', this.#apiKey),
      field('Model', this.#model),
      field('Context window (tokens)', this.#contextWindow),
      field('MCP servers (Streamable HTTP, one URL per line)', this.#mcpServers),
      field('Session budget (USD, 0 for none)', this.#sessionBudget),
      h(
        'p',
        { class: 'hint' },
        'Kept in this browser\u2019s localStorage only. The key is sent to the endpoint in the Authorization header and is never stored in sessions, events or memories. Visitors of a page that embeds a key can read it: use this with your own key, on your own machine.',
      ),
      h('div', { class: 'dialog-buttons' }, ...(useServer ? [useServer] : []), offline, cancel, save),
    );
    this.element = h('dialog', { class: 'settings' }, form);
    form.addEventListener('submit', () => onSave(this.#read()));
    offline.addEventListener('click', () => {
      this.#baseURL.value = '';
      this.element.close();
      onSave({ ...this.#read(), useServerModel: false });
    });
    useServer?.addEventListener('click', () => {
      const chosen = this.#read();
      this.element.close();
      const model = server!.models.includes(chosen.model) ? chosen.model : server!.models[0]!;
      onSave({ ...chosen, model, useServerModel: true });
    });
    cancel.addEventListener('click', () => this.element.close());
  }

  open(settings: EndpointSettings): void {
    this.#baseURL.value = settings.baseURL;
    this.#apiKey.value = settings.apiKey;
    this.#model.value = settings.model;
    this.#contextWindow.value = String(settings.contextWindow);
    this.#mcpServers.value = settings.mcpServers;
    this.#sessionBudget.value = String(settings.sessionBudgetUsd);
    this.#runOn[settings.runOn].checked = true;
    this.#opened = settings;
    this.element.showModal();
  }

  #read(): EndpointSettings {
    const runOn = this.#runOn.server.checked && agentServer() ? 'server' : 'browser';
    return {
      baseURL: this.#baseURL.value,
      apiKey: this.#apiKey.value,
      model: this.#model.value,
      contextWindow: Number(this.#contextWindow.value),
      mcpServers: this.#mcpServers.value,
      sessionBudgetUsd: Number(this.#sessionBudget.value || 0),
      // Saving the form chooses the endpoint it shows; on the server that endpoint does not
      // apply, so the choice of the server's model is kept.
      useServerModel: runOn === 'server' && (this.#opened?.useServerModel ?? false),
      runOn,
    };
  }
}
