/**
 * What the chat shows for the system messages the runtime adds to a history, and which tool
 * results mean "not run". The runtime's texts are matched by their fixed openings; anything
 * unknown shows as a plain system notice.
 * @module
 */
import type { ConversationItem } from './conversation.js';

/** The results of calls a cancel or a failure kept from running. */
export const SKIPPED_RESULT_TEXTS: readonly string[] = [
  'Tool call skipped: the turn was cancelled before it started.',
  'Tool call not run: the turn failed before it started.',
];

/** The notice for the system message at `id`. */
export function noticeForSystemMessage(id: string, content: string): ConversationItem {
  const skill = /^<skill>\s*<name>([^<]+)<\/name>/.exec(content)?.[1];
  if (skill) return { kind: 'notice', id, level: 'info', text: `Skill /${skill} was added to this message.` };
  if (content.startsWith('[The previous assistant message was interrupted')) {
    return {
      kind: 'notice',
      id,
      level: 'warning',
      text: 'The answer above was interrupted before it was finished.',
    };
  }
  if (content.startsWith('[Context summary]')) {
    return { kind: 'notice', id, level: 'info', text: 'Earlier messages were compacted into a summary.' };
  }
  if (content.startsWith('[The previous turn reached its limit')) {
    return {
      kind: 'notice',
      id,
      level: 'warning',
      text: 'The turn reached its tool-call limit and stopped.',
    };
  }
  return {
    kind: 'notice',
    id,
    level: 'info',
    text: `System: ${content.length > 120 ? `${content.slice(0, 119)}\u2026` : content}`,
  };
}
