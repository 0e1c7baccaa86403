/**
 * The Allow / Deny / Always buttons of a tool card that waits for approval. A click does not
 * reach the agent itself: it dispatches an `approval-decision` event that bubbles up to the app,
 * which answers the running turn (`turn.approve` / `turn.deny`).
 * @module
 */
import { h } from '../dom.js';

/** What a click decides. */
export type ApprovalChoice = 'allow' | 'deny' | 'always';

/** The detail of an `approval-decision` event. */
export interface ApprovalDecisionDetail {
  callId: string;
  choice: ApprovalChoice;
}

/** The name of the event the buttons dispatch. */
export const APPROVAL_DECISION_EVENT = 'approval-decision';

const LABELS: Record<ApprovalChoice, string> = {
  allow: 'Allow',
  deny: 'Deny',
  always: 'Always allow',
};

/** The buttons for the call `callId`; `show(false)` hides them once it is decided. */
export function approvalButtons(callId: string): { element: HTMLElement; show(visible: boolean): void } {
  const buttons = (Object.keys(LABELS) as ApprovalChoice[]).map((choice) => {
    const button = h('button', { class: `approval-${choice}`, attrs: { type: 'button' } }, LABELS[choice]);
    button.addEventListener('click', () => {
      for (const b of buttons) b.disabled = true; // one answer per call
      const detail: ApprovalDecisionDetail = { callId, choice };
      button.dispatchEvent(new CustomEvent(APPROVAL_DECISION_EVENT, { detail, bubbles: true }));
    });
    return button;
  });
  const element = h(
    'div',
    { class: 'approval', attrs: { role: 'group', 'aria-label': 'Approve this tool call' } },
    h('span', { class: 'approval-question' }, 'Run this tool?'),
    ...buttons,
  );
  return {
    element,
    show(visible) {
      // Shown again only for a new wait: a click's buttons stay disabled until it is decided.
      if (visible && element.hidden) for (const b of buttons) b.disabled = false;
      element.hidden = !visible;
    },
  };
}
