/** What every row of the chat is. @module */

/** A row's element, and how to show a changed version of its item in it. */
export interface ItemView<T> {
  readonly element: HTMLElement;
  update(item: T): void;
}
