/**
 * The chat: one row per conversation item, keyed, so an emission redraws only the rows whose item
 * object changed (the conversation keeps unchanged items identical), and a turn's usage line
 * under its last row.
 * @module
 */
import type { TurnSummary } from '../agent/turn-summary.js';
import type { Conversation, ConversationItem } from 'youyou-agent';
import { itemKey } from '../conversation/item-key.js';
import { formatCost, formatCount, h } from './dom.js';
import { assistantRow } from './items/assistant-row.js';
import type { ItemView } from './items/item-view.js';
import { noticeRow } from './items/notice-row.js';
import { toolCard } from './items/tool-card.js';
import { userRow } from './items/user-row.js';

interface Row {
  item: ConversationItem;
  view: ItemView<never>;
}

export class ChatView {
  readonly element = h('section', { class: 'chat', attrs: { role: 'log', 'aria-label': 'Conversation' } });
  readonly #empty = h(
    'div',
    { class: 'empty' },
    h('h2', {}, 'Start a conversation'),
    h(
      'p',
      {},
      'Ask for a calculation, the time somewhere, or a note to keep. Type /stepwise before a calculation to use the demo skill.',
    ),
  );
  readonly #rows = new Map<string, Row>();
  /** Usage lines, each under the row that ended its turn. */
  readonly #footers = new Map<string, { afterKey: string; element: HTMLElement }>();
  #latest: Conversation | null = null;
  #scheduled = false;

  /** Shows `conversation` at the next frame (many deltas in one frame cost one redraw). */
  show(conversation: Conversation): void {
    this.#latest = conversation;
    if (this.#scheduled) return;
    this.#scheduled = true;
    requestAnimationFrame(() => {
      this.#scheduled = false;
      this.#render(this.#latest!);
    });
  }

  /** Draws `conversation`; rows of unchanged items are left alone. */
  #render(conversation: Conversation): void {
    const stick = this.element.scrollHeight - this.element.scrollTop - this.element.clientHeight < 40;
    const wanted: Node[] = [];
    const keys = new Set<string>();
    for (const item of conversation.items) {
      const key = itemKey(item);
      keys.add(key);
      wanted.push(this.#rowFor(key, item));
      for (const footer of this.#footers.values()) if (footer.afterKey === key) wanted.push(footer.element);
    }
    for (const [key, row] of this.#rows) {
      if (!keys.has(key)) {
        row.view.element.remove();
        this.#rows.delete(key);
      }
    }
    if (wanted.length === 0) wanted.push(this.#empty);
    this.#place(wanted);
    if (stick) this.element.scrollTop = this.element.scrollHeight;
  }

  /** Puts a turn's usage line under the last item (the turn's last, as the turn has ended). */
  addTurnSummary(summary: TurnSummary): void {
    const last = this.#latest?.items.at(-1);
    if (!last) return;
    const { usage } = summary;
    const parts = [
      summary.status,
      `${formatCount(usage.inputTokens)} in / ${formatCount(usage.outputTokens)} out tokens`,
      summary.cost === null ? 'cost unknown' : formatCost(summary.cost),
      `${(summary.durationMs / 1000).toFixed(1)} s`,
    ];
    const element = h(
      'div',
      { class: 'turn-summary', attrs: { 'data-turn': summary.turnId, 'data-status': summary.status } },
      parts.join(' \u00b7 '),
    );
    this.#footers.set(summary.turnId, { afterKey: itemKey(last), element });
    if (this.#latest) this.show(this.#latest);
  }

  /** Forgets the usage lines (another session is shown). */
  clearTurnSummaries(): void {
    for (const { element } of this.#footers.values()) element.remove();
    this.#footers.clear();
  }

  #rowFor(key: string, item: ConversationItem): Node {
    const row = this.#rows.get(key);
    if (row && row.item === item) return row.view.element;
    if (row && row.item.kind === item.kind) {
      (row.view.update as (i: ConversationItem) => void)(item);
      row.item = item;
      return row.view.element;
    }
    row?.view.element.remove();
    const view = createView(item);
    this.#rows.set(key, { item, view });
    return view.element;
  }

  /** Makes the children of the chat exactly `nodes`, in order, moving as few as it can. */
  #place(nodes: readonly Node[]): void {
    let cursor = this.element.firstChild;
    for (const node of nodes) {
      if (node === cursor) {
        cursor = cursor.nextSibling;
      } else {
        this.element.insertBefore(node, cursor);
      }
    }
    while (cursor) {
      const next = cursor.nextSibling;
      cursor.remove();
      cursor = next;
    }
  }
}

function createView(item: ConversationItem): ItemView<never> {
  switch (item.kind) {
    case 'user':
      return userRow(item);
    case 'assistant':
      return assistantRow(item);
    case 'tool':
      return toolCard(item);
    case 'notice':
      return noticeRow(item);
  }
}
