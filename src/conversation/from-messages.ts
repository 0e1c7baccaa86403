/**
 * The stored-shape rules: what one `Message` of the transcript does to the items. The live view
 * applies each message as it is appended and a resume applies the stored ones, through these same
 * rules, so both show the same user, assistant and tool items.
 *
 * - `user` → a user item.
 * - `assistant` → ends the streamed item (its text and status become the message's), or, when
 *   nothing was streamed, an item of its own — unless it has no text: a response that only
 *   carries tool calls shows its tool items, not an empty answer.
 * - `tool_call` → a tool item, `running` until its result.
 * - `tool_result` → its call's item becomes `done`, `error`, `skipped` or `denied` (approval was
 *   refused), with the output.
 * - `system` → a notice for the runtime's interruption and tool-limit notes; nothing otherwise.
 * @module
 */
import * as OutputTexts from '../output/output-texts.js';
import { TOOL_CALL_DENIED_PREFIX, TOOL_CALL_SKIPPED_TEXT } from '../prompt/tool-result-texts.js';
import { FINAL_ANSWER_TOOL, type Message } from '../types.js';
import { ConversationItems, messageItemId, type AssistantItem, type ToolItem } from './items.js';
import { compactionNotice, noticeOfSystemMessage } from './notices.js';
import type { ConversationItem } from './schema.js';

/** The text of an assistant message (its text blocks, joined). */
export function assistantText(message: Extract<Message, { type: 'assistant' }>): string {
  let text = '';
  for (const block of message.content) if (block.type === 'text') text += block.text;
  return text;
}

/** Applies one transcript message. */
export function applyMessage(items: ConversationItems, message: Message): void {
  const id = messageItemId(items.nextMessage++);
  switch (message.type) {
    case 'user':
      items.push({ kind: 'user', id, content: message.content });
      return;
    case 'assistant':
      return applyAssistant(items, id, message);
    case 'tool_call':
      items.push({
        kind: 'tool',
        callId: message.callId,
        toolName: message.toolName,
        arguments: message.arguments,
        status: 'running',
      });
      return;
    case 'tool_result':
      return applyToolResult(items, message);
    case 'system': {
      const notice = noticeOfSystemMessage(message.content);
      if (notice) items.push({ kind: 'notice', id, ...notice });
      return;
    }
  }
}

/**
 * A structured answer was accepted: the `final_answer` item of `callId` (by default the latest
 * one) shows the validated answer as its output's `metadata`.
 */
export function applyOutput(items: ConversationItems, output: unknown, callId?: string): void {
  let index = callId === undefined ? undefined : items.toolIndex(callId);
  if (callId === undefined) {
    for (let i = items.length - 1; i >= 0 && index === undefined; i--) {
      const item = items.at(i);
      if (item.kind === 'tool' && item.toolName === FINAL_ANSWER_TOOL) index = i;
    }
  }
  if (index === undefined) return;
  const item = items.at(index) as ToolItem;
  items.set(index, {
    ...item,
    status: 'done',
    output: { content: item.output?.content ?? OutputTexts.accepted, isError: false, metadata: output },
  });
}

/** Adds the notice of one compaction. */
export function applyCompaction(items: ConversationItems, strategy: 'micro' | 'summary'): void {
  items.push(compactionNotice(++items.compactions, strategy));
}

/**
 * The items of a transcript in stored shape, as a resumed session shows them (without the
 * compaction notices, which come from the stored snapshots).
 * @example
 * itemsFromMessages([{ type: 'user', content: [{ type: 'text', text: 'hi' }] }]);
 * // [{ kind: 'user', id: 'message-0', content: [{ type: 'text', text: 'hi' }] }]
 */
export function itemsFromMessages(messages: readonly Message[]): readonly ConversationItem[] {
  const items = new ConversationItems();
  for (const message of messages) applyMessage(items, message);
  return items.snapshot();
}

function applyAssistant(
  items: ConversationItems,
  id: string,
  message: Extract<Message, { type: 'assistant' }>,
): void {
  const text = assistantText(message);
  const streamed = items.streaming;
  if (streamed !== null) {
    // The streamed item keeps its reasoning (live only); text and status are the stored ones.
    const item = items.at(streamed) as AssistantItem;
    items.set(streamed, { ...item, id, text, status: message.status });
    items.streaming = null;
  } else if (text !== '') {
    items.push({ kind: 'assistant', id, text, reasoning: '', status: message.status });
  }
}

function applyToolResult(items: ConversationItems, result: Extract<Message, { type: 'tool_result' }>): void {
  const index = items.toolIndex(result.callId);
  if (index === undefined) return;
  const item = items.at(index) as ToolItem;
  const status: ToolItem['status'] = !result.isError
    ? 'done'
    : result.content === TOOL_CALL_SKIPPED_TEXT
      ? 'skipped'
      : result.content.startsWith(TOOL_CALL_DENIED_PREFIX)
        ? 'denied'
        : 'error';
  // The live item already holds this output since `tool_call_end`: keep it (and the item) as is.
  const same = item.output?.content === result.content && item.output.isError === result.isError;
  if (same && item.status === status) return;
  items.set(index, {
    ...item,
    status,
    output: same ? item.output! : { content: result.content, isError: result.isError },
  });
}
