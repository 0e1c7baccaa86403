/**
 * The chunks of the AI SDK's UI message stream that the handler sends, and the `UIMessage` shape
 * `GET …/chat/:id/messages` answers with. Our own types: the handler does not depend on the AI
 * SDK; the tests check these against its schema and client.
 * @module
 */
import type { TokenUsage } from '../../types.js';

/** What `message-metadata` carries: the turn's totals so far. */
export interface ChatMessageMetadata {
  usage: TokenUsage;
  /** USD; `null` while no response reported a cost. */
  cost: number | null;
}

/** The finish reasons of the UI message stream that the handler sends. */
export type ChatFinishReason = 'stop' | 'length' | 'content-filter' | 'tool-calls' | 'other';

/** One chunk of a UI message stream. */
export type UiMessageChunk =
  | { type: 'start'; messageId: string }
  | { type: 'start-step' }
  | { type: 'finish-step' }
  | { type: 'text-start'; id: string }
  | { type: 'text-delta'; id: string; delta: string }
  | { type: 'text-end'; id: string }
  | { type: 'reasoning-start'; id: string }
  | { type: 'reasoning-delta'; id: string; delta: string }
  | { type: 'reasoning-end'; id: string }
  | { type: 'tool-input-start'; toolCallId: string; toolName: string }
  | { type: 'tool-input-available'; toolCallId: string; toolName: string; input: unknown }
  | { type: 'tool-approval-request'; approvalId: string; toolCallId: string }
  | { type: 'tool-approval-response'; approvalId: string; approved: boolean; reason?: string }
  | { type: 'tool-output-available'; toolCallId: string; output: unknown }
  | { type: 'tool-output-error'; toolCallId: string; errorText: string }
  | { type: 'tool-output-denied'; toolCallId: string }
  | { type: 'data-output'; data: unknown; transient?: true }
  | { type: 'message-metadata'; messageMetadata: ChatMessageMetadata }
  | { type: 'finish'; finishReason: ChatFinishReason }
  | { type: 'abort' }
  | { type: 'error'; errorText: string };

/** A tool call's approval as a part keeps it. */
export interface ChatToolApproval {
  id: string;
  approved?: boolean;
  reason?: string;
}

/** One part of a {@link ChatMessage}. */
export type ChatMessagePart =
  | { type: 'step-start' }
  | { type: 'text'; text: string; state?: 'done' }
  | { type: 'reasoning'; id: string; text: string; state: 'done' }
  | { type: 'file'; mediaType: string; url: string }
  | { type: 'data-output'; data: unknown }
  | {
      type: `tool-${string}`;
      toolCallId: string;
      state:
        | 'input-available'
        | 'approval-requested'
        | 'approval-responded'
        | 'output-available'
        | 'output-error'
        | 'output-denied';
      input: unknown;
      output?: unknown;
      errorText?: string;
      approval?: ChatToolApproval;
    };

/** A message as the AI SDK's `useChat` holds it (a `UIMessage`). */
export interface ChatMessage {
  id: string;
  role: 'user' | 'assistant';
  parts: ChatMessagePart[];
  metadata?: ChatMessageMetadata;
}

/** The sentence a failed turn's `error` chunk says: no detail reaches the page. */
export const CHAT_FAILED_SENTENCE = 'the turn failed';
