/**
 * The result the model reads for a call that was denied: who denied it, and why when they said.
 * @module
 */
import type { ApprovalVerdict } from '../../machines/turn.types.js';
import * as ToolResultTexts from '../prompt/tool-result-texts.js';
import { TOOL_CALL_SKIPPED_TEXT } from '../prompt/tool-result-texts.js';

/**
 * The result text of a denied call.
 * @example
 * denialText({ callId: 'c1', approved: false, by: 'user', reason: 'not now' });
 * // 'Tool call denied by the user: not now'
 */
export function denialText(verdict: ApprovalVerdict): string {
  switch (verdict.by) {
    case 'user':
      return ToolResultTexts.deniedByUser(verdict.reason);
    case 'policy':
      return ToolResultTexts.deniedByPolicy(verdict.reason);
    case 'timeout':
      return ToolResultTexts.approvalTimedOut();
    case 'cancel':
      return TOOL_CALL_SKIPPED_TEXT;
  }
}
