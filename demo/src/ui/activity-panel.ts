/**
 * The demo plugin's view: every hook call as it happens, newest at the bottom.
 * @module
 */
import type { HookActivity } from '../parts/hook-activity-plugin.js';
import { h, setChildren } from './dom.js';

export class ActivityPanel {
  readonly #list = h('ol', { class: 'activity', attrs: { 'aria-label': 'Hook activity' } });
  readonly element = h(
    'aside',
    { class: 'activity-panel' },
    h('h2', {}, 'Plugin: hook activity'),
    h('p', { class: 'hint' }, 'The demo plugin taps every lifecycle hook and logs it here.'),
    this.#list,
  );

  update(entries: readonly HookActivity[]): void {
    const stick = this.#list.scrollHeight - this.#list.scrollTop - this.#list.clientHeight < 40;
    setChildren(
      this.#list,
      ...entries.map((entry) =>
        h(
          'li',
          { attrs: { 'data-event': entry.event } },
          h('time', {}, entry.timestamp.slice(11, 23)),
          h('code', {}, entry.event),
          h('span', {}, entry.summary),
        ),
      ),
    );
    if (stick) this.#list.scrollTop = this.#list.scrollHeight;
  }
}
