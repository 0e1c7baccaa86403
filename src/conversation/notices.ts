/**
 * The texts of the notices a conversation shows, and which of the runtime's own system messages
 * become one. Notices that come from stored data (an interruption note, the tool-call limit note,
 * a compaction) read the same live and after a resume, so they say only what is stored.
 * @module
 */
import { INTERRUPTED_MESSAGE_NOTE, MAX_TOOL_CALLS_NOTE } from '../prompt/templates.js';
import type { ConversationItem } from './schema.js';

/** A notice item. */
export type NoticeItem = Extract<ConversationItem, { kind: 'notice' }>;

/** What users read in the notices. */
export const NoticeTexts = {
  interrupted: 'The answer was interrupted before it was finished.',
  skill: (name: string) => `Using the skill /${name}.`,
  toolLimit: (limit: number) => `The turn stopped at its limit of ${limit} tool calls.`,
  compacted: {
    micro: 'Older tool outputs were cleared from the context to save space.',
    summary: 'Earlier messages were summarized to save context space.',
  },
} as const;

const TOOL_LIMIT = /limit of (\d+) tool calls/;
/** The runtime's own skill injection (see `skillInjectionText`). */
const SKILL = /^<skill>\n<name>([^<\n]+)<\/name>\n[\s\S]*\n<\/skill>$/;

/** The notice a system message stands for, or `null` (summaries, the caller's own). */
export function noticeOfSystemMessage(content: string): Pick<NoticeItem, 'level' | 'text'> | null {
  if (content === INTERRUPTED_MESSAGE_NOTE) return { level: 'warning', text: NoticeTexts.interrupted };
  const skill = SKILL.exec(content)?.[1];
  if (skill !== undefined) return { level: 'info', text: NoticeTexts.skill(skill) };
  const limit = TOOL_LIMIT.exec(content)?.[1];
  if (limit !== undefined && content === MAX_TOOL_CALLS_NOTE(Number(limit))) {
    return { level: 'warning', text: NoticeTexts.toolLimit(Number(limit)) };
  }
  return null;
}

/** The notice of the `count`-th compaction of a session. */
export function compactionNotice(count: number, strategy: 'micro' | 'summary'): NoticeItem {
  return { kind: 'notice', id: `compaction-${count}`, level: 'info', text: NoticeTexts.compacted[strategy] };
}
