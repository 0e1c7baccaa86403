/**
 * The stored sessions: a paged list (newest first), a search over their text, delete, and a
 * click to resume one.
 * @module
 */
import type { SessionSummary } from 'youyou-agent';
import type { SessionDirectory } from '../agent/chat-agent.js';
import { h, setChildren } from './dom.js';

const PAGE_SIZE = 20;

export interface SidebarActions {
  open(summary: SessionSummary): void;
  delete(summary: SessionSummary): void;
  newChat(): void;
}

export class Sidebar {
  readonly #search = h('input', {
    attrs: { type: 'search', placeholder: 'Search sessions', 'aria-label': 'Search sessions' },
  });
  readonly #list = h('ul', { class: 'sessions', attrs: { 'aria-label': 'Sessions' } });
  readonly #more = h('button', { class: 'more', attrs: { type: 'button' } }, 'Load more');
  readonly #status = h('p', { class: 'sessions-status' });
  readonly element: HTMLElement;
  readonly #storage: SessionDirectory;
  readonly #actions: SidebarActions;
  #cursor: string | null = null;
  #activeId: string | null = null;
  #searchTimer: ReturnType<typeof setTimeout> | undefined;
  /** Increases per reload, so a slow answer for an older query is dropped. */
  #generation = 0;

  constructor(storage: SessionDirectory, actions: SidebarActions) {
    this.#storage = storage;
    this.#actions = actions;
    const newChat = h('button', { class: 'new-chat primary', attrs: { type: 'button' } }, '+ New chat');
    newChat.addEventListener('click', () => actions.newChat());
    this.#search.addEventListener('input', () => {
      clearTimeout(this.#searchTimer);
      this.#searchTimer = setTimeout(() => void this.reload(), 200);
    });
    this.#more.addEventListener('click', () => void this.#loadMore());
    this.element = h(
      'nav',
      { class: 'sidebar' },
      newChat,
      this.#search,
      this.#list,
      this.#more,
      this.#status,
    );
  }

  /** Marks the open session. */
  setActive(id: string | null): void {
    this.#activeId = id;
    for (const li of this.#list.querySelectorAll<HTMLElement>('li')) {
      li.classList.toggle('active', li.dataset['sessionId'] === id);
    }
  }

  /** Reloads the first page, or the search results when a query is typed. */
  async reload(): Promise<void> {
    const generation = ++this.#generation;
    const query = this.#search.value.trim();
    if (query) {
      const found = await this.#storage.findSessions(query);
      if (generation !== this.#generation) return;
      this.#cursor = null;
      setChildren(this.#list, ...found.map((s) => this.#entry(s)));
      this.#status.textContent =
        found.length === 0 ? `No session mentions \u201c${query}\u201d.` : `${found.length} found`;
    } else {
      const page = await this.#storage.listSessions(null, PAGE_SIZE);
      if (generation !== this.#generation) return;
      this.#cursor = page.nextCursor;
      setChildren(this.#list, ...page.sessions.map((s) => this.#entry(s)));
      this.#status.textContent = page.sessions.length === 0 ? 'No sessions yet.' : '';
    }
    this.#more.hidden = this.#cursor === null;
  }

  async #loadMore(): Promise<void> {
    if (this.#cursor === null) return;
    const generation = this.#generation;
    const page = await this.#storage.listSessions(this.#cursor, PAGE_SIZE);
    if (generation !== this.#generation) return;
    this.#cursor = page.nextCursor;
    this.#list.append(...page.sessions.map((s) => this.#entry(s)));
    this.#more.hidden = this.#cursor === null;
  }

  #entry(summary: SessionSummary): HTMLElement {
    const open = h(
      'button',
      { class: 'session-open', attrs: { type: 'button', title: summary.title || 'Untitled session' } },
      h('span', { class: 'session-title' }, summary.title || 'Untitled session'),
      h(
        'span',
        { class: 'session-meta' },
        `${new Date(summary.updatedAt).toLocaleString()} \u00b7 ${summary.turnCount} turn(s) \u00b7 ${summary.modelId}`,
      ),
    );
    open.addEventListener('click', () => this.#actions.open(summary));
    const remove = h(
      'button',
      {
        class: 'session-delete',
        attrs: { type: 'button', 'aria-label': `Delete ${summary.title || 'session'}`, title: 'Delete' },
      },
      '\u00d7',
    );
    remove.addEventListener('click', () => this.#actions.delete(summary));
    const li = h('li', { attrs: { 'data-session-id': summary.id } }, open, remove);
    li.classList.toggle('active', summary.id === this.#activeId);
    return li;
  }
}
