/**
 * Our `ChatRequest` → the body of a streaming `POST /responses`. Pure. The history becomes input
 * items: an assistant message whose stored items may be replayed here goes as those items,
 * verbatim and in order (reasoning included); any other goes as plain text and `function_call`
 * items without ids, so no reasoning and no server id reaches a model they do not belong to.
 * @module
 */
import { rawToolCallArguments } from '../../../tools/raw-arguments.js';
import type { ChatRequest, ContentBlock, Message, ToolSpec } from '../../../types.js';
import { originalCallIds, replayItems, type ReplayTarget } from './replay-items.js';

/** A part of a user message. */
export type ResponsesUserPart =
  { type: 'input_text'; text: string } | { type: 'input_image'; image_url: string; detail: 'auto' };

/** One input item: a message, a call, its output, a reference, or a stored output item as it was. */
export type ResponsesInputItem =
  | { role: 'system' | 'assistant'; content: string }
  | { role: 'user'; content: string | ResponsesUserPart[] }
  | { type: 'function_call'; call_id: string; name: string; arguments: string }
  | { type: 'function_call_output'; call_id: string; output: string }
  | { readonly type: string; readonly [key: string]: unknown };

/** A tool offered to the model. */
export interface ResponsesWireTool {
  type: 'function';
  name: string;
  description: string;
  parameters: Record<string, unknown>;
  strict: false;
}

/** The body of a streaming Responses request. */
export interface ResponsesWireRequest {
  model: string;
  input: ResponsesInputItem[];
  stream: true;
  store: boolean;
  instructions?: string;
  tools?: ResponsesWireTool[];
  max_output_tokens?: number;
  include?: ['reasoning.encrypted_content'];
}

/**
 * The request body: the system prompt as `instructions`, the history as input items (see
 * {@link toResponsesInput}), tools as functions (omitted when there are none), `store` as
 * configured and, without server storage, the encrypted reasoning asked for so that it can be
 * sent back.
 * @example
 * toResponsesRequest(request, { providerId: 'openai-responses', model: request.model, store: false });
 */
export function toResponsesRequest(request: ChatRequest, target: ReplayTarget): ResponsesWireRequest {
  const body: ResponsesWireRequest = {
    model: request.model,
    input: toResponsesInput(request.messages, target),
    stream: true,
    store: target.store,
  };
  if (request.systemPrompt) body.instructions = request.systemPrompt;
  if (request.tools.length > 0) body.tools = request.tools.map(toResponsesTool);
  if (request.maxOutputTokens !== undefined) body.max_output_tokens = request.maxOutputTokens;
  if (!target.store) body.include = ['reasoning.encrypted_content'];
  return body;
}

function toResponsesTool(tool: ToolSpec): ResponsesWireTool {
  return {
    type: 'function',
    name: tool.name,
    description: tool.description,
    parameters: tool.parameters,
    strict: false,
  };
}

/**
 * Our history → input items.
 *
 * - An assistant message with items {@link replayItems} accepts: those items; its `tool_call`
 *   messages are among them (not sent twice). Tool results then go by the server's own
 *   `call_id` (undoing a qualification).
 * - Any other assistant message: `{ role: 'assistant', content }` (when it has text), then each
 *   call as a `function_call` without `id`.
 * - User messages: text, or `input_text` / `input_image` parts; system messages stay `system`.
 */
export function toResponsesInput(messages: readonly Message[], target: ReplayTarget): ResponsesInputItem[] {
  const input: ResponsesInputItem[] = [];
  // Runtime call id → the server's, for the calls of replayed responses.
  const serverCallIds = new Map<string, string>();
  // The calls the replayed items of the current assistant message already carry.
  let replayedCalls: ReadonlySet<string> = new Set();
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i]!;
    switch (message.type) {
      case 'assistant': {
        const items = replayItems(message.providerItems, target);
        replayedCalls = new Set();
        if (items) {
          input.push(...(items as ResponsesInputItem[]));
          const mapped = originalCallIds(items, followingCallIds(messages, i));
          for (const [runtimeId, serverId] of mapped) serverCallIds.set(runtimeId, serverId);
          replayedCalls = new Set(mapped.keys());
        } else {
          const text = joinText(message.content);
          if (text) input.push({ role: 'assistant', content: text });
        }
        break;
      }
      case 'tool_call':
        if (replayedCalls.has(message.callId)) break;
        input.push({
          type: 'function_call',
          call_id: message.callId,
          name: message.toolName,
          arguments: rawToolCallArguments(message.arguments),
        });
        break;
      case 'tool_result':
        input.push({
          type: 'function_call_output',
          call_id: serverCallIds.get(message.callId) ?? message.callId,
          output: message.content,
        });
        break;
      case 'user':
        replayedCalls = new Set();
        input.push({ role: 'user', content: toUserContent(message.content) });
        break;
      case 'system':
        input.push({ role: 'system', content: message.content });
        break;
    }
  }
  return input;
}

/** The ids of the `tool_call` messages right after the assistant message at `index`. */
function followingCallIds(messages: readonly Message[], index: number): string[] {
  const ids: string[] = [];
  for (let i = index + 1; i < messages.length; i++) {
    const message = messages[i]!;
    if (message.type !== 'tool_call') break;
    ids.push(message.callId);
  }
  return ids;
}

function toUserContent(blocks: readonly ContentBlock[]): string | ResponsesUserPart[] {
  if (blocks.every((b) => b.type === 'text')) return joinText(blocks);
  return blocks.map((b): ResponsesUserPart =>
    b.type === 'text'
      ? { type: 'input_text', text: b.text }
      : { type: 'input_image', image_url: `data:${b.mediaType};base64,${b.data}`, detail: 'auto' },
  );
}

function joinText(blocks: readonly ContentBlock[]): string {
  return blocks.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('\n');
}
