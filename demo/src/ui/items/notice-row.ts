/** A notice: compaction, interruption, a skill added, an error. @module */
import type { ConversationItem } from 'youyou-agent';
import { h } from '../dom.js';
import type { ItemView } from './item-view.js';

type NoticeItem = Extract<ConversationItem, { kind: 'notice' }>;

export function noticeRow(item: NoticeItem): ItemView<NoticeItem> {
  const element = h('div', { class: 'row notice', attrs: { 'data-kind': 'notice', role: 'note' } });
  const update = (next: NoticeItem) => {
    element.dataset['id'] = next.id;
    element.dataset['level'] = next.level;
    element.textContent = next.text;
  };
  update(item);
  return { element, update };
}
