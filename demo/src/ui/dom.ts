/**
 * A tiny element builder. Strings always become text nodes, never markup: model output and
 * stored text cannot inject HTML through it.
 * @module
 */

type Child = Node | string | null | undefined | false;

/** Attributes (`class`, `data-*`, `aria-*`, …) and event listeners of {@link h}. */
export interface Props {
  class?: string;
  attrs?: Record<string, string>;
  on?: { [K in keyof HTMLElementEventMap]?: (event: HTMLElementEventMap[K]) => void };
}

/**
 * A new element with `props` and `children`.
 * @example
 * h('p', { class: 'note' }, 'Model output is ', h('b', {}, 'text'), '.');
 */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Props = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  if (props.class) element.className = props.class;
  for (const [name, value] of Object.entries(props.attrs ?? {})) element.setAttribute(name, value);
  for (const [type, listener] of Object.entries(props.on ?? {})) {
    element.addEventListener(type, listener as EventListener);
  }
  element.append(...children.filter((c): c is Node | string => c !== null && c !== undefined && c !== false));
  return element;
}

/** Replaces the children of `element`. */
export function setChildren(element: Element, ...children: Child[]): void {
  element.replaceChildren(
    ...children.filter((c): c is Node | string => c !== null && c !== undefined && c !== false),
  );
}

/** `n` with thousands separators. */
export function formatCount(n: number): string {
  return n.toLocaleString('en-US');
}

/** A USD amount with enough digits to show small costs. */
export function formatCost(usd: number): string {
  return usd >= 0.01 ? `$${usd.toFixed(2)}` : `$${usd.toPrecision(2)}`;
}
