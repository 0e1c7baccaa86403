/**
 * {@link reply}: builders of the common scripted responses (text, tool calls, a failure), so a
 * test states what the model answers rather than the events of its stream.
 * @module
 */
import * as Errors from '../error-constructors.js';
import { generateId } from '../ids.js';
import type { TokenUsage } from '../types.js';
import type { ScriptItem, ScriptedResponse } from './script.js';

/** Options shared by the {@link reply} builders. */
export interface ReplyOptions {
  /** Adds a `usage` event; missing counts are 0, `totalTokens` defaults to input + output. */
  usage?: Partial<TokenUsage>;
  /** Cost (USD) reported with the usage; only sent when `usage` is given. */
  cost?: number;
  /** The `done` event's finish reason. Default `'stop'` for text, `'tool_calls'` for tool calls. */
  finishReason?: string;
  /** Reasoning text, streamed first as one `reasoning_delta`. */
  reasoning?: string;
}

/** Options of {@link reply}`.text`. */
export interface TextReplyOptions extends ReplyOptions {
  /** Split the text into this many `text_delta`s (at character boundaries). Default 1. */
  chunks?: number;
}

/** Options of {@link reply}`.toolCalls`. */
export interface ToolCallsReplyOptions extends ReplyOptions {
  /** Assistant text streamed before the calls. */
  text?: string;
  /**
   * Also stream each call's arguments as this many `tool_call_delta`s (the first names the call
   * and the tool), as a provider does while the model writes them; the whole calls follow. Default
   * 0: the calls arrive whole only.
   */
  argumentChunks?: number;
}

/** One tool call for {@link reply}`.toolCalls`. */
export interface ScriptedToolCall {
  /** Tool name. */
  name: string;
  /** An object (or any non-string) is sent as JSON; a string is sent as-is (so tests can send invalid JSON). */
  arguments: unknown;
  /** Default: a fresh unique id. */
  callId?: string;
}

/** Builders of common scripted responses. Each ends with `usage` (when given), then `done`. */
export const reply = {
  /** A text answer, optionally in `chunks` deltas, after optional reasoning. */
  text(text: string, options: TextReplyOptions = {}): ScriptedResponse {
    const items: ScriptItem[] = [...reasoningOf(options)];
    for (const chunk of splitText(text, options.chunks ?? 1)) items.push({ type: 'text_delta', text: chunk });
    return [...items, ...ending(options, 'stop')];
  },

  /** Tool calls (each whole, with its arguments as JSON text), after optional text. */
  toolCalls(calls: ScriptedToolCall[], options: ToolCallsReplyOptions = {}): ScriptedResponse {
    const items: ScriptItem[] = [...reasoningOf(options)];
    if (options.text) items.push({ type: 'text_delta', text: options.text });
    const whole = calls.map((call) => ({
      type: 'tool_call' as const,
      callId: call.callId ?? `call_${generateId().replace(/-/g, '').slice(0, 24)}`,
      toolName: call.name,
      arguments: argumentsText(call.arguments),
    }));
    const chunks = options.argumentChunks ?? 0;
    if (chunks > 0) {
      whole.forEach(({ callId, toolName, arguments: text }, index) => {
        splitText(text, chunks).forEach((argumentsDelta, i) =>
          items.push(
            i === 0
              ? { type: 'tool_call_delta', index, callId, toolName, argumentsDelta }
              : { type: 'tool_call_delta', index, argumentsDelta },
          ),
        );
      });
    }
    items.push(...whole);
    return [...items, ...ending(options, 'tool_calls')];
  },

  /** A response that fails: the stream throws `error` as-is. */
  error(error: unknown): ScriptedResponse {
    return [{ type: 'throw', error }];
  },
} as const;

function reasoningOf(options: ReplyOptions): ScriptItem[] {
  return options.reasoning ? [{ type: 'reasoning_delta', text: options.reasoning }] : [];
}

function ending(options: ReplyOptions, defaultFinishReason: string): ScriptItem[] {
  const items: ScriptItem[] = [];
  if (options.usage) {
    items.push({
      type: 'usage',
      usage: fullUsage(options.usage),
      ...(options.cost === undefined ? {} : { cost: options.cost }),
    });
  }
  items.push({ type: 'done', finishReason: options.finishReason ?? defaultFinishReason });
  return items;
}

function fullUsage(partial: Partial<TokenUsage>): TokenUsage {
  const inputTokens = partial.inputTokens ?? 0;
  const outputTokens = partial.outputTokens ?? 0;
  return {
    inputTokens,
    outputTokens,
    ...(partial.cachedInputTokens === undefined ? {} : { cachedInputTokens: partial.cachedInputTokens }),
    ...(partial.reasoningTokens === undefined ? {} : { reasoningTokens: partial.reasoningTokens }),
    totalTokens: partial.totalTokens ?? inputTokens + outputTokens,
  };
}

/** `text` in `chunks` nearly equal parts, never splitting a code point; no empty parts. */
function splitText(text: string, chunks: number): string[] {
  if (!Number.isInteger(chunks) || chunks < 1) {
    throw Errors.invalidInput(`chunks must be a positive integer, got ${String(chunks)}`);
  }
  const chars = Array.from(text);
  const count = Math.min(chunks, chars.length);
  const parts: string[] = [];
  for (let i = 0; i < count; i += 1) {
    const start = Math.floor((i * chars.length) / count);
    const end = Math.floor(((i + 1) * chars.length) / count);
    parts.push(chars.slice(start, end).join(''));
  }
  return parts;
}

function argumentsText(value: unknown): string {
  if (typeof value === 'string') return value;
  return JSON.stringify(value) ?? '{}';
}
