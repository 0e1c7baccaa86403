/**
 * Whether a person can use what the demo shows: the page does not scroll sideways, no
 * interactive element is covered by another (the element at its centre is itself or inside it),
 * and, on a phone, each is at least 44 px in both directions.
 * @module
 */
import type { Page } from 'playwright-core';

/** What to check, and where. */
export interface LayoutCheck {
  /** Only the controls inside this selector (an open dialog or panel covers the rest on purpose). */
  within?: string;
  /** The smallest width and height of a control, in CSS pixels (44 on a phone). */
  minTarget?: number;
}

/**
 * The problems found, one sentence each (an empty list when there are none). Every visible
 * control is scrolled into view first, so a control that cannot be reached is reported too.
 * @example
 * expect(await layoutProblems(page.page, { minTarget: 44 })).toEqual([]);
 */
export function layoutProblems(page: Page, check: LayoutCheck = {}): Promise<string[]> {
  return page.evaluate(({ within, minTarget }) => {
    const problems: string[] = [];
    const width = window.innerWidth;
    const height = window.innerHeight;
    const name = (el: Element) => {
      const text = (el.textContent ?? '').trim().replace(/\s+/g, ' ').slice(0, 30);
      const label = el.getAttribute('aria-label') ?? el.getAttribute('name') ?? text;
      return `<${el.tagName.toLowerCase()}${el.className ? `.${String(el.className).split(' ').join('.')}` : ''}> "${label}"`;
    };
    const root = document.documentElement;
    if (root.scrollWidth > width)
      problems.push(`the page is ${root.scrollWidth} px wide in a ${width} px window`);
    for (const box of document.querySelectorAll(
      '.main, .chat, .top-bar, .composer, .sidebar, .activity-panel, dialog[open]',
    )) {
      if (box.checkVisibility() && box.scrollWidth > box.clientWidth + 1) {
        problems.push(`${name(box)} scrolls sideways (${box.scrollWidth} px in ${box.clientWidth} px)`);
      }
    }
    const scope = within ? document.querySelector(within) : document.body;
    if (!scope) return [`nothing matches ${within}`];
    const controls = [
      ...scope.querySelectorAll<HTMLElement>('button, input, textarea, select, a[href]'),
    ].filter((el) => el.checkVisibility({ visibilityProperty: true, opacityProperty: true }));
    if (controls.length === 0) problems.push(`no visible control in ${within ?? 'the page'}`);
    for (const el of controls) {
      el.scrollIntoView({ block: 'nearest', inline: 'nearest' });
      const rect = el.getBoundingClientRect();
      const x = rect.left + rect.width / 2;
      const y = rect.top + rect.height / 2;
      if (x < 0 || y < 0 || x > width || y > height) {
        problems.push(`${name(el)} cannot be brought into the window (its centre is at ${x}, ${y})`);
        continue;
      }
      const hit = document.elementFromPoint(x, y);
      // A radio button or checkbox is hit through its label, which wraps it.
      if (
        !hit ||
        !(hit === el || el.contains(hit) || (hit instanceof HTMLLabelElement && hit.control === el))
      ) {
        problems.push(`${name(el)} is covered by ${hit ? name(hit) : 'nothing'}`);
      }
      if (minTarget) {
        const small = el instanceof HTMLInputElement && (el.type === 'checkbox' || el.type === 'radio');
        const target = (small && el.closest('label')) || el;
        const box = target.getBoundingClientRect();
        if (box.width < minTarget || box.height < minTarget) {
          problems.push(`${name(target)} is ${Math.round(box.width)}\u00d7${Math.round(box.height)} px`);
        }
      }
    }
    return problems;
  }, check);
}
