/**
 * "Inspect machines": connects the Stately inspector to the agent's root actor, so the Agent,
 * Session and Turn machines show live. The inspector is a hosted page (stately.ai) that opens in
 * a new window: it needs an internet connection, and the UI says so.
 * @module
 */
import type { InspectionObserver } from 'youyou-agent';
import { h } from './dom.js';

export class InspectToggle {
  readonly #checkbox = h('input', { attrs: { type: 'checkbox' } });
  readonly element = h(
    'label',
    {
      class: 'inspect-toggle',
      attrs: { title: 'Opens the hosted Stately inspector in a new window. Needs an internet connection.' },
    },
    this.#checkbox,
    h('span', {}, 'Inspect machines'),
    h('small', {}, '(opens stately.ai \u2014 needs internet)'),
  );
  #stop: (() => void) | null = null;

  constructor(connect: (inspect: InspectionObserver | null) => Promise<void>) {
    this.#checkbox.addEventListener('change', () => {
      void (async () => {
        if (this.#checkbox.checked) {
          // Loaded on demand: the inspector and what it brings stay out of the main bundle.
          const { createBrowserInspector } = await import('@statelyai/inspect');
          const inspector = createBrowserInspector();
          this.#stop = () => inspector.stop();
          await connect(inspector.inspect);
        } else {
          this.#stop?.();
          this.#stop = null;
          await connect(null);
        }
      })();
    });
  }
}
