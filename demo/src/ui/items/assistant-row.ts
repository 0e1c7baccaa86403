/**
 * An assistant answer: its reasoning (folded) and its text, plain text only — markup in model
 * output shows as the characters it is made of.
 * @module
 */
import type { ConversationItem } from 'youyou-agent';
import { h } from '../dom.js';
import type { ItemView } from './item-view.js';

type AssistantItem = Extract<ConversationItem, { kind: 'assistant' }>;

const STATUS_LABEL: Record<AssistantItem['status'], string> = {
  streaming: 'streaming\u2026',
  complete: '',
  incomplete: 'incomplete',
};

export function assistantRow(item: AssistantItem): ItemView<AssistantItem> {
  const reasoningText = h('div', { class: 'reasoning-text' });
  const reasoning = h('details', { class: 'reasoning' }, h('summary', {}, 'Reasoning'), reasoningText);
  const text = h('div', { class: 'text' });
  const status = h('span', { class: 'status' });
  const element = h(
    'article',
    { class: 'row assistant', attrs: { 'data-kind': 'assistant', 'data-id': item.id } },
    h('div', { class: 'bubble' }, reasoning, text, status),
  );
  const update = (next: AssistantItem) => {
    element.dataset['id'] = next.id;
    element.dataset['status'] = next.status;
    reasoning.hidden = next.reasoning === '';
    // textContent: whatever the model wrote is shown as text, never parsed as HTML.
    if (reasoningText.textContent !== next.reasoning) reasoningText.textContent = next.reasoning;
    if (text.textContent !== next.text) text.textContent = next.text;
    status.textContent = STATUS_LABEL[next.status];
    status.hidden = next.status === 'complete';
  };
  update(item);
  return { element, update };
}
