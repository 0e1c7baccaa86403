/**
 * The opt-in content attributes (`recordContent: true`): a request's messages and system
 * instructions and a response's output, in the conventions' JSON shapes
 * (`{ role, parts: [{ type: 'text' | 'tool_call' | 'tool_call_response', … }] }`).
 * @module
 */
import type { ChatRequest, ContentBlock, Message } from '../types.js';

type Part =
  | { type: 'text'; content: string }
  | { type: 'blob'; modality: 'image'; mime_type: string }
  | { type: 'tool_call'; id: string; name: string; arguments: unknown }
  | { type: 'tool_call_response'; id: string; response: string };

interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  parts: Part[];
  finish_reason?: string;
}

// An image's bytes stay out of the trace: its type is enough to read the conversation.
const blockPart = (block: ContentBlock): Part =>
  block.type === 'text'
    ? { type: 'text', content: block.text }
    : { type: 'blob', modality: 'image', mime_type: block.mediaType };

/** `gen_ai.input.messages` and `gen_ai.system_instructions` of a request, as JSON. */
export function requestContent(request: ChatRequest): Record<string, string> {
  const messages: ChatMessage[] = [];
  for (const message of request.messages) {
    const last = messages.at(-1);
    const part = messagePart(message);
    const role = roleOf(message);
    // A response's tool calls join its assistant message, as the wire sends them.
    if (last && last.role === role && (role === 'assistant' || role === 'tool')) last.parts.push(...part);
    else messages.push({ role, parts: part });
  }
  return {
    'gen_ai.input.messages': JSON.stringify(messages),
    'gen_ai.system_instructions': JSON.stringify([{ type: 'text', content: request.systemPrompt }]),
  };
}

/** `gen_ai.output.messages` of a response: its text and tool calls. */
export function outputContent(
  text: string,
  toolCalls: readonly { callId: string; toolName: string; arguments: string }[],
  finishReason: string | null,
): string {
  const parts: Part[] = text ? [{ type: 'text', content: text }] : [];
  for (const call of toolCalls)
    parts.push({
      type: 'tool_call',
      id: call.callId,
      name: call.toolName,
      arguments: parsed(call.arguments),
    });
  const message: ChatMessage = { role: 'assistant', parts };
  if (finishReason !== null) message.finish_reason = finishReason;
  return JSON.stringify([message]);
}

function roleOf(message: Message): ChatMessage['role'] {
  switch (message.type) {
    case 'tool_call':
      return 'assistant';
    case 'tool_result':
      return 'tool';
    default:
      return message.type;
  }
}

function messagePart(message: Message): Part[] {
  switch (message.type) {
    case 'user':
    case 'assistant':
      return message.content.map(blockPart);
    case 'system':
      return [{ type: 'text', content: message.content }];
    case 'tool_call':
      return [
        { type: 'tool_call', id: message.callId, name: message.toolName, arguments: message.arguments },
      ];
    case 'tool_result':
      return [{ type: 'tool_call_response', id: message.callId, response: message.content }];
  }
}

function parsed(json: string): unknown {
  try {
    return JSON.parse(json);
  } catch {
    return json;
  }
}

/** A value as an attribute string: JSON, or the string itself. */
export function asAttribute(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
