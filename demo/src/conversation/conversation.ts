/**
 * The renderable conversation the chat view draws: the shape of the library's
 * `session.conversation`. Until the library ships it, `conversation-adapter.ts` derives it;
 * these types then give way to the library's own.
 * @module
 */
import type { ContentBlock, TokenUsage, ToolOutput } from 'youyou-agent';

/** Everything the chat shows, at one moment. */
export interface Conversation {
  items: readonly ConversationItem[];
  turn: { id: string; status: 'running' | 'awaiting_approval' } | null;
  /** The whole session's usage and cost (`null`: no response had a known cost). */
  usage: TokenUsage;
  cost: number | null;
  context: { estimatedTokens: number; contextWindow: number; compactAt: number };
}

/** One row of the chat. `id` / `callId` identify it across emissions. */
export type ConversationItem =
  | { kind: 'user'; id: string; content: ContentBlock[] }
  | {
      kind: 'assistant';
      id: string;
      text: string;
      reasoning: string;
      status: 'streaming' | 'complete' | 'incomplete';
    }
  | {
      kind: 'tool';
      callId: string;
      toolName: string;
      arguments: unknown;
      status: 'awaiting_approval' | 'running' | 'done' | 'error' | 'skipped' | 'denied';
      output?: ToolOutput;
      durationMs?: number;
    }
  | { kind: 'notice'; id: string; level: 'info' | 'warning' | 'error'; text: string };

/** The key of an item: unique within a conversation, stable across emissions. */
export function itemKey(item: ConversationItem): string {
  return item.kind === 'tool' ? `tool:${item.callId}` : `${item.kind}:${item.id}`;
}
