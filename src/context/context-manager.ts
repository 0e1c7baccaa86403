/**
 * `ContextManager` owns one session's message history: it appends, estimates the
 * request size, and applies compactions. It is a plain object the turn's actors reach through
 * the session's services, so the transcript never sits in machine context (where the inspector would serialize it on every step).
 * @module
 */
import type { Message, TokenUsage } from '../types.js';
import { clearedToolResult } from '../prompt/templates.js';
import { charsToTokens, messageChars } from './token-estimate.js';

/** A session's context history. */
export class ContextManager {
  #history: Message[] = [];
  /** Tokens the provider counted for the history up to `messageCount`, when known. */
  #baseline: { messageCount: number; tokens: number } | null = null;

  constructor(messages: readonly Message[] = []) {
    this.#history = [...messages];
  }

  /** The current history (read-only view; do not mutate). */
  get messages(): readonly Message[] {
    return this.#history;
  }

  /** Appends one message. */
  push(message: Message): void {
    this.#history.push(message);
  }

  /** Replaces the whole history (after a compaction); the usage baseline no longer applies. */
  replace(messages: readonly Message[]): void {
    this.#history = [...messages];
    this.#baseline = null;
  }

  /**
   * Records what the provider reported for the request that produced the latest response, so
   * later estimates start from real counts: input + output tokens cover the history up to now.
   */
  recordUsage(usage: TokenUsage): void {
    this.#baseline = { messageCount: this.#history.length, tokens: usage.inputTokens + usage.outputTokens };
  }

  /**
   * Estimated tokens of a request with this history: chars/4 of prompt, messages and tool specs,
   * or — once the provider reported usage — its count plus chars/4 of what was appended since.
   * With other `messages` (a compaction candidate) the estimate is chars/4 of those alone.
   */
  estimateTokens(
    promptChars: number,
    toolsChars: number,
    messages: readonly Message[] = this.#history,
  ): number {
    const base = messages === this.#history ? this.#baseline : null;
    if (base && base.messageCount <= messages.length) {
      let chars = 0;
      for (let i = base.messageCount; i < messages.length; i++) chars += messageChars(messages[i]!);
      return base.tokens + charsToTokens(chars);
    }
    let chars = promptChars + toolsChars;
    for (const m of messages) chars += messageChars(m);
    return charsToTokens(chars);
  }
}

/**
 * Micro-compaction: every tool result but the last `keepRecent` gets a short placeholder
 * instead of its content. Returns the new history and how many results were cleared; tool calls
 * keep their results (only the content shrinks), so the history stays valid.
 */
export function microCompact(
  messages: readonly Message[],
  keepRecent: number,
): { messages: Message[]; cleared: number } {
  let seen = 0;
  let cleared = 0;
  const out = new Array<Message>(messages.length);
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.type === 'tool_result') {
      seen++;
      const placeholder = clearedToolResult(m.content.length);
      if (seen > keepRecent && m.content.length > placeholder.length) {
        out[i] = { ...m, content: placeholder };
        cleared++;
        continue;
      }
    }
    out[i] = m;
  }
  return { messages: out, cleared };
}

/**
 * Where summary compaction splits the history: the longest suffix worth at most
 * `budgetTokens` that starts at a user, assistant or system message — never between a tool
 * call and its result. Returns the index of the first kept message (`messages.length`: keep none).
 */
export function recentSplitIndex(messages: readonly Message[], budgetTokens: number): number {
  let tokens = 0;
  let split = messages.length;
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    tokens += charsToTokens(messageChars(m));
    if (tokens > budgetTokens) break;
    if (m.type !== 'tool_call' && m.type !== 'tool_result') split = i;
  }
  return split;
}
