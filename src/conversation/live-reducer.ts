/**
 * The live reducer: what one `AgentEvent` does to the items, on top of the messages the session
 * appends (see `from-messages.ts`). Events bring what messages do not carry, or not yet:
 *
 * - `text_delta` / `reasoning_delta` → into the streaming assistant item (created by the first
 *   delta, with the id its message will get); only that item is rebuilt.
 * - `tool_call_start` → the call's item is `running`; `tool_call_end` → `done` or `error`, with
 *   the output the model reads and `durationMs` (live only).
 * - `approval_requested` → the call's item is `awaiting_approval`; `approval_resolved` → `running`
 *   when approved, `denied` when refused (a cancel leaves it to the skipped result), and the
 *   denied item keeps that status through its `tool_call_end`.
 * - `context_compacted` → a compaction notice (a resume derives it from the stored snapshot).
 * - `error` → a notice, `error` when fatal, else `warning`; live only. The tool-call limit is
 *   left out: its stored note already shows as a notice.
 * - `turn_complete` / `turn_cancelled` / a fatal `error` → a streaming item still open ends
 *   `complete` / `incomplete` (normally its message has ended it already).
 *
 * - `output` → the latest `final_answer` item shows the validated answer (its output's `metadata`).
 *
 * Other payloads (`usage`) change no item.
 * @module
 */
import type { AgentEvent } from '../types.js';
import { applyCompaction, applyOutput } from './from-messages.js';
import { ConversationItems, messageItemId, type AssistantItem, type ToolItem } from './items.js';

/** The id of a live-only notice: the event's sequence (unique in one `Session` object). */
export function eventNoticeId(event: AgentEvent): string {
  return `event-${event.sequence}`;
}

/** The text of the notice an `error` or `retry_scheduled` event shows. */
export function errorNoticeText(
  payload: Extract<AgentEvent['payload'], { type: 'error' | 'retry_scheduled' }>,
): string {
  return payload.type === 'error'
    ? payload.error.message
    : `Retrying in ${Math.ceil(payload.delayMs / 1000)} s (attempt ${payload.attempt} failed: ${payload.error.message})`;
}

/** Applies one live event to the items. */
export function applyEvent(items: ConversationItems, event: AgentEvent): void {
  const { payload } = event;
  switch (payload.type) {
    case 'text_delta':
    case 'reasoning_delta': {
      const index = (items.streaming ??= items.push({
        kind: 'assistant',
        id: messageItemId(items.nextMessage),
        text: '',
        reasoning: '',
        status: 'streaming',
      }));
      const item = items.at(index) as AssistantItem;
      items.set(
        index,
        payload.type === 'text_delta'
          ? { ...item, text: item.text + payload.text }
          : { ...item, reasoning: item.reasoning + payload.text },
      );
      return;
    }
    case 'tool_call_start': {
      // The item exists since its `tool_call` message; arguments stay as the model sent them.
      if (items.toolIndex(payload.callId) !== undefined) return;
      items.push({
        kind: 'tool',
        callId: payload.callId,
        toolName: payload.toolName,
        arguments: payload.arguments,
        status: 'running',
      });
      return;
    }
    case 'approval_requested':
    case 'approval_resolved': {
      const index = items.toolIndex(payload.callId);
      if (index === undefined) return;
      const item = items.at(index) as ToolItem;
      const status: ToolItem['status'] =
        payload.type === 'approval_requested'
          ? 'awaiting_approval'
          : payload.approved
            ? 'running'
            : payload.by === 'cancel'
              ? item.status
              : 'denied';
      if (status !== item.status) items.set(index, { ...item, status });
      return;
    }
    case 'tool_call_end': {
      const index = items.toolIndex(payload.callId);
      if (index === undefined) return;
      const item = items.at(index) as ToolItem;
      items.set(index, {
        ...item,
        status: payload.success ? 'done' : item.status === 'denied' ? 'denied' : 'error',
        // As the tool_result message will hold it: what the model reads (metadata is not stored).
        output: { content: payload.output.content, isError: !payload.success },
        durationMs: payload.durationMs,
      });
      return;
    }
    case 'context_compacted':
      applyCompaction(items, payload.strategy);
      return;
    case 'output':
      applyOutput(items, payload.output);
      return;
    case 'turn_complete':
      return settleStreaming(items, 'complete');
    case 'turn_cancelled':
      return settleStreaming(items, 'incomplete');
    case 'error':
      if (payload.fatal) settleStreaming(items, 'incomplete');
      if (!payload.fatal && payload.error.code === 'MAX_TOOL_CALLS_EXCEEDED') return;
      items.push({
        kind: 'notice',
        id: eventNoticeId(event),
        level: payload.fatal ? 'error' : 'warning',
        text: errorNoticeText(payload),
      });
      return;
    case 'retry_scheduled':
      items.push({
        kind: 'notice',
        id: eventNoticeId(event),
        level: 'warning',
        text: errorNoticeText(payload),
      });
      return;
    default:
      return;
  }
}

function settleStreaming(items: ConversationItems, status: 'complete' | 'incomplete'): void {
  if (items.streaming === null) return;
  const item = items.at(items.streaming) as AssistantItem;
  items.set(items.streaming, { ...item, status });
  items.streaming = null;
}
