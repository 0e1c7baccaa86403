/** A user message. @module */
import type { ConversationItem } from 'youyou-agent';
import { h, setChildren } from '../dom.js';
import type { ItemView } from './item-view.js';

type UserItem = Extract<ConversationItem, { kind: 'user' }>;

export function userRow(item: UserItem): ItemView<UserItem> {
  const body = h('div', { class: 'bubble' });
  const element = h(
    'article',
    { class: 'row user', attrs: { 'data-kind': 'user', 'data-id': item.id } },
    body,
  );
  const update = (next: UserItem) => {
    element.dataset['id'] = next.id;
    setChildren(
      body,
      ...next.content.map((block) =>
        block.type === 'text'
          ? h('p', { class: 'text' }, block.text)
          : h('p', { class: 'image' }, `[image ${block.mediaType}]`),
      ),
    );
  };
  update(item);
  return { element, update };
}
