/**
 * The rule every request depends on: each `tool_call` is answered by exactly one `tool_result`
 * before the next assistant, user or system message. A history cut off by a reload may hold
 * calls with no result; this gives each of them a derived error result at the end of its run of
 * calls and results, where the real one would have been.
 * @module
 */
import type { Message } from '../types.js';

type ToolResultMessage = Extract<Message, { type: 'tool_result' }>;

/** A history whose every call has a result, and the results that were added. */
export interface PairedHistory {
  messages: Message[];
  /** The derived results, in history order (the same objects as in `messages`). */
  added: ToolResultMessage[];
}

/**
 * Adds a result with `content` (an error) for every call that has none.
 * @example
 * pairToolCalls([{ type: 'tool_call', callId: 'c1', toolName: 'f', arguments: {} }], 'interrupted');
 * // → the call, then { type: 'tool_result', callId: 'c1', content: 'interrupted', isError: true }
 */
export function pairToolCalls(history: readonly Message[], content: string): PairedHistory {
  const messages: Message[] = [];
  const added: ToolResultMessage[] = [];
  let open: string[] = [];
  const closeRun = () => {
    for (const callId of open) {
      const result: ToolResultMessage = { type: 'tool_result', callId, content, isError: true };
      messages.push(result);
      added.push(result);
    }
    open = [];
  };
  for (const message of history) {
    if (message.type === 'tool_call') open.push(message.callId);
    else if (message.type === 'tool_result') open = open.filter((id) => id !== message.callId);
    else closeRun();
    messages.push(message);
  }
  closeRun();
  return { messages, added };
}
