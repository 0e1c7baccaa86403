/**
 * A tool call: its name, status, arguments, output (red when it is an error) and duration; while
 * it waits for approval, Allow / Deny / Always buttons.
 * @module
 */
import type { ConversationItem } from 'youyou-agent';
import { h } from '../dom.js';
import { approvalButtons } from './approval-buttons.js';
import type { ItemView } from './item-view.js';

type ToolItem = Extract<ConversationItem, { kind: 'tool' }>;

const STATUS_LABEL: Record<ToolItem['status'], string> = {
  awaiting_approval: 'awaiting approval',
  running: 'running\u2026',
  done: 'done',
  error: 'error',
  skipped: 'skipped',
  denied: 'denied',
};

export function toolCard(item: ToolItem): ItemView<ToolItem> {
  const name = h('span', { class: 'tool-name' });
  const status = h('span', { class: 'tool-status' });
  const duration = h('span', { class: 'tool-duration' });
  const args = h('pre', { class: 'tool-arguments' });
  const output = h('pre', { class: 'tool-output' });
  const approval = approvalButtons(item.callId);
  const element = h(
    'article',
    { class: 'row tool', attrs: { 'data-kind': 'tool', 'data-id': item.callId } },
    h(
      'div',
      { class: 'card' },
      h(
        'header',
        {},
        h('span', { class: 'tool-icon', attrs: { 'aria-hidden': 'true' } }, '\u2699'),
        name,
        status,
        duration,
      ),
      h('div', { class: 'tool-label' }, 'arguments'),
      args,
      h('div', { class: 'tool-label output-label' }, 'output'),
      output,
      approval.element,
    ),
  );
  const update = (next: ToolItem) => {
    element.dataset['status'] = next.status;
    name.textContent = next.toolName;
    status.textContent = STATUS_LABEL[next.status];
    duration.textContent = next.durationMs === undefined ? '' : `${formatDuration(next.durationMs)}`;
    args.textContent =
      typeof next.arguments === 'string' ? next.arguments : JSON.stringify(next.arguments, null, 2);
    output.textContent = next.output?.content ?? '';
    output.hidden = next.output === undefined;
    element.querySelector('.output-label')!.toggleAttribute('hidden', next.output === undefined);
    approval.show(next.status === 'awaiting_approval');
  };
  update(item);
  return { element, update };
}

function formatDuration(ms: number): string {
  return ms < 1000 ? `${ms < 10 ? ms.toFixed(1) : Math.round(ms)} ms` : `${(ms / 1000).toFixed(2)} s`;
}
