/**
 * Our `ChatRequest` → the body of a streaming Chat Completions request. Pure. The wire types
 * below are the subset of the `openai` SDK's request types we send, written out so that only the
 * provider file imports `openai` (they are structurally assignable to the SDK's).
 * @module
 */
import { rawToolCallArguments } from '../../tools/raw-arguments.js';
import type { ChatRequest, ContentBlock, Message, ToolSpec } from '../../types.js';

/** A text or image part of a user message. */
export type WireUserPart = { type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } };

/** One function call inside an assistant message. */
export interface WireToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/** One Chat Completions message. */
export type WireMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string | WireUserPart[] }
  | { role: 'assistant'; content: string | null; tool_calls?: WireToolCall[] }
  | { role: 'tool'; tool_call_id: string; content: string };

/** A tool offered to the model, as a function. */
export interface WireTool {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

/**
 * Which request field carries `maxOutputTokens`: OpenAI's current `max_completion_tokens`
 * (required by its reasoning models), or the older `max_tokens` that every OpenAI-compatible
 * server knows (Ollama, vLLM, LM Studio, DeepSeek).
 */
export type MaxTokensField = 'max_tokens' | 'max_completion_tokens';

/** The body of a streaming Chat Completions request. */
export interface WireRequest {
  model: string;
  messages: WireMessage[];
  stream: true;
  stream_options: { include_usage: true };
  tools?: WireTool[];
  max_tokens?: number;
  max_completion_tokens?: number;
}

/**
 * The request body for `request`: system prompt first, the history mapped by
 * {@link toWireMessages}, tools as functions (omitted when there are none: some servers reject an
 * empty list), usage requested at the end of the stream, and `maxOutputTokens` in `maxTokensField`.
 */
export function toWireRequest(request: ChatRequest, maxTokensField: MaxTokensField): WireRequest {
  const body: WireRequest = {
    model: request.model,
    messages: toWireMessages(request.systemPrompt, request.messages),
    stream: true,
    stream_options: { include_usage: true },
  };
  if (request.tools.length > 0) body.tools = request.tools.map(toWireTool);
  if (request.maxOutputTokens !== undefined) body[maxTokensField] = request.maxOutputTokens;
  return body;
}

/** A tool spec as a Chat Completions function tool. */
export function toWireTool(tool: ToolSpec): WireTool {
  return {
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: tool.parameters },
  };
}

/**
 * Our history → Chat Completions messages.
 *
 * - A non-empty `systemPrompt` comes first as a `system` message; `system` messages inside the
 *   history stay `system` (not `developer`: every compatible server knows `system`).
 * - An `assistant` message directly followed by `tool_call` messages becomes ONE assistant message
 *   with `content` and `tool_calls`; a run of `tool_call`s with no assistant message before it
 *   becomes one assistant message with `content: null`.
 * - `tool_call` arguments that are a string (invalid JSON the model produced, kept raw) are sent
 *   as that string; anything else is sent as its JSON text.
 * - User text-only content becomes a plain string (blocks joined by `\n`); with images, a list of
 *   parts where each image is an `image_url` data URL. Assistant content keeps its text only
 *   (Chat Completions has no assistant images).
 */
export function toWireMessages(systemPrompt: string, messages: readonly Message[]): WireMessage[] {
  const wire: WireMessage[] = systemPrompt ? [{ role: 'system', content: systemPrompt }] : [];
  // The assistant message that the next tool_call messages join, while the run lasts.
  let openAssistant: Extract<WireMessage, { role: 'assistant' }> | undefined;
  for (const message of messages) {
    if (message.type === 'tool_call') {
      if (!openAssistant) {
        openAssistant = { role: 'assistant', content: null };
        wire.push(openAssistant);
      }
      (openAssistant.tool_calls ??= []).push(toWireToolCall(message));
      // An assistant message with tool calls and no text sends `null`, not `""`.
      if (openAssistant.content === '') openAssistant.content = null;
      continue;
    }
    openAssistant = undefined;
    switch (message.type) {
      case 'system':
        wire.push({ role: 'system', content: message.content });
        break;
      case 'user':
        wire.push({ role: 'user', content: toUserContent(message.content) });
        break;
      case 'assistant':
        openAssistant = { role: 'assistant', content: joinText(message.content) };
        wire.push(openAssistant);
        break;
      case 'tool_result':
        wire.push({ role: 'tool', tool_call_id: message.callId, content: message.content });
        break;
    }
  }
  return wire;
}

function toWireToolCall(message: Extract<Message, { type: 'tool_call' }>): WireToolCall {
  const args = rawToolCallArguments(message.arguments);
  return {
    id: message.callId,
    type: 'function',
    function: { name: message.toolName, arguments: args },
  };
}

function toUserContent(blocks: readonly ContentBlock[]): string | WireUserPart[] {
  if (blocks.every((b) => b.type === 'text')) return joinText(blocks);
  return blocks.map((b): WireUserPart =>
    b.type === 'text'
      ? { type: 'text', text: b.text }
      : { type: 'image_url', image_url: { url: `data:${b.mediaType};base64,${b.data}` } },
  );
}

function joinText(blocks: readonly ContentBlock[]): string {
  let text = '';
  let first = true;
  for (const b of blocks) {
    if (b.type !== 'text') continue;
    text += first ? b.text : `\n${b.text}`;
    first = false;
  }
  return text;
}
