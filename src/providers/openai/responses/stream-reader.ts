/**
 * `ResponsesStreamReader`: the events of a streamed Responses API answer → `ChatEvent`s. Pure: it
 * is given parsed events one by one and answers with what to emit. Output items are keyed by
 * `output_index` (some servers change `item_id` on every event); unknown events and fields are
 * ignored.
 * @module
 */
import { responseCost } from '../../cost.js';
import type { ChatEvent, ModelPricing, TokenUsage } from '../../../types.js';
import { isOutputItem, qualifyCallId, type OutputItem } from './replay-items.js';
import {
  chatCompletionsAnswerError,
  reportedError,
  responseFailedError,
  truncatedStreamError,
} from './response-errors.js';

/** What the reader needs to know about its request. */
export interface ResponsesStreamOptions {
  /** The provider's id: the items are tagged with it, and errors name it. */
  providerId: string;
  /** The model id of the request: the items are tagged with it. */
  model: string;
  /** Call ids the history already has: a call that reuses one gets a qualified id. */
  takenCallIds: ReadonlySet<string>;
  /** The model's prices, for a cost when the server reports none. */
  pricing?: ModelPricing | undefined;
}

/** What the stream said about one output item so far. */
interface ItemState {
  /** The runtime's id of a `function_call` item's call. */
  callId?: string;
  toolName?: string;
  /** Whether a text delta came for it (else a message's text comes from its done item). */
  texted: boolean;
  /** Whether a `tool_call_delta` came for it (the first carries the call id and name). */
  streamedArguments: boolean;
  /** The final item (`output_item.done`), verbatim. */
  done?: OutputItem;
}

/** xAI ticks per USD. */
const TICKS_PER_USD = 1e10;

type Json = Record<string, unknown>;

/**
 * Reads one response.
 *
 * - `output_text.delta` and `refusal.delta` → `text_delta`; a message item that had no deltas
 *   gives its text at `output_item.done`.
 * - `reasoning_summary_text.delta` and `reasoning_text.delta` → `reasoning_delta`, parts joined by
 *   a blank line.
 * - `function_call_arguments.delta` → `tool_call_delta` (`index` = `output_index`); a
 *   `function_call` item's `output_item.done` → `tool_call` with the done item's arguments.
 * - `response.completed` / `response.incomplete` → `usage`, `response_items` (the done items in
 *   `output_index` order), `done` (`tool_calls` when a function call was seen, else `stop`;
 *   `length` or `content_filter` from the incomplete reason). What follows is ignored.
 * - `error` and `response.failed` throw `PROVIDER_ERROR`; {@link finish} without a terminal event
 *   throws a retryable truncation.
 * @example
 * const reader = new ResponsesStreamReader({ providerId: 'openai-responses', model: 'gpt-5', takenCallIds: new Set() });
 * for await (const event of stream) yield* reader.push(event);
 * yield* reader.finish();
 */
export class ResponsesStreamReader {
  readonly #options: ResponsesStreamOptions;
  readonly #items = new Map<number, ItemState>();
  readonly #taken: Set<string>;
  #responseId: string | undefined;
  #reasoningKey: string | undefined;
  #sawFunctionCall = false;
  #ended = false;

  constructor(options: ResponsesStreamOptions) {
    this.#options = options;
    this.#taken = new Set(options.takenCallIds);
  }

  /** Whether a terminal event has been read. */
  get ended(): boolean {
    return this.#ended;
  }

  /** The events `event` gives rise to. Throws `PROVIDER_ERROR` for a reported failure. */
  push(event: unknown): ChatEvent[] {
    if (this.#ended || typeof event !== 'object' || event === null) return [];
    const e = event as Json;
    const type = e['type'];
    if (type === 'error' || (type === undefined && e['error'] != null)) {
      throw responseFailedError(this.#options.providerId, 'an error', reportedError(e));
    }
    if (e['object'] === 'chat.completion.chunk') throw chatCompletionsAnswerError(this.#options.providerId);
    const index = typeof e['output_index'] === 'number' ? e['output_index'] : -1;
    const delta = typeof e['delta'] === 'string' ? e['delta'] : '';
    switch (type) {
      case 'response.created':
      case 'response.in_progress':
      case 'response.queued':
        this.#readResponseId(e['response']);
        return [];
      case 'response.output_text.delta':
      case 'response.refusal.delta':
        if (!delta) return [];
        this.#item(index).texted = true;
        return [{ type: 'text_delta', text: delta }];
      case 'response.reasoning_summary_text.delta':
        return this.#reasoning(`${index}:s${String(e['summary_index'])}`, delta);
      case 'response.reasoning_text.delta':
        return this.#reasoning(`${index}:c${String(e['content_index'])}`, delta);
      case 'response.output_item.added':
        if (isOutputItem(e['item'])) this.#noteCall(index, e['item']);
        return [];
      case 'response.function_call_arguments.delta':
        return this.#argumentsDelta(index, delta);
      case 'response.output_item.done':
        return isOutputItem(e['item']) ? this.#itemDone(index, e['item']) : [];
      case 'response.completed':
      case 'response.incomplete':
        return this.#terminal(type, e['response']);
      case 'response.failed': {
        const response = (e['response'] ?? {}) as Json;
        throw responseFailedError(
          this.#options.providerId,
          'a failed response',
          response['error'] ?? { message: 'the response failed' },
        );
      }
      default:
        return [];
    }
  }

  /** What the end of the stream gives: nothing after a terminal event, else a truncation error. */
  finish(): ChatEvent[] {
    if (!this.#ended) throw truncatedStreamError(this.#options.providerId);
    return [];
  }

  #item(index: number): ItemState {
    let state = this.#items.get(index);
    if (!state) {
      state = { texted: false, streamedArguments: false };
      this.#items.set(index, state);
    }
    return state;
  }

  #readResponseId(response: unknown): void {
    const id = (response as Json | null)?.['id'];
    if (typeof id === 'string' && this.#responseId === undefined) this.#responseId = id;
  }

  #reasoning(key: string, delta: string): ChatEvent[] {
    if (!delta) return [];
    const separated = this.#reasoningKey !== undefined && this.#reasoningKey !== key;
    this.#reasoningKey = key;
    return [{ type: 'reasoning_delta', text: separated ? `\n\n${delta}` : delta }];
  }

  /** Names a function call's item the first time it is seen (its call id qualified if taken). */
  #noteCall(index: number, item: OutputItem): ItemState {
    const state = this.#item(index);
    if (item.type !== 'function_call' || state.callId !== undefined) return state;
    const serverId = typeof item['call_id'] === 'string' && item['call_id'] ? item['call_id'] : undefined;
    if (serverId !== undefined) {
      const suffix = this.#responseId ?? (typeof item['id'] === 'string' ? item['id'] : `o${index}`);
      state.callId = qualifyCallId(serverId, this.#taken, suffix);
      this.#taken.add(state.callId);
    }
    if (typeof item['name'] === 'string') state.toolName = item['name'];
    return state;
  }

  #argumentsDelta(index: number, delta: string): ChatEvent[] {
    if (!delta) return [];
    const state = this.#item(index);
    const first = !state.streamedArguments;
    state.streamedArguments = true;
    return [
      {
        type: 'tool_call_delta',
        index: Math.max(0, index),
        ...(first && state.callId !== undefined && { callId: state.callId }),
        ...(first && state.toolName !== undefined && { toolName: state.toolName }),
        argumentsDelta: delta,
      },
    ];
  }

  #itemDone(index: number, item: OutputItem): ChatEvent[] {
    const state = this.#noteCall(index, item);
    const first = state.done === undefined;
    state.done = item;
    if (!first) return [];
    if (item.type === 'function_call') {
      this.#sawFunctionCall = true;
      const args = item['arguments'];
      return [
        {
          type: 'tool_call',
          callId: state.callId ?? '',
          toolName: typeof item['name'] === 'string' ? item['name'] : (state.toolName ?? ''),
          arguments: typeof args === 'string' ? args : '',
        },
      ];
    }
    if (item.type === 'message' && !state.texted) {
      const text = messageText(item);
      if (text) return [{ type: 'text_delta', text }];
    }
    return [];
  }

  #terminal(type: 'response.completed' | 'response.incomplete', response: unknown): ChatEvent[] {
    const r = (typeof response === 'object' && response !== null ? response : {}) as Json;
    this.#readResponseId(r);
    const events: ChatEvent[] = [];
    // A server that sent no `output_item.done` at all: the final response's items are the done
    // ones. (Otherwise its `output` is not read: its positions need not be the output indexes.)
    const output = Array.isArray(r['output']) ? r['output'] : [];
    if (![...this.#items.values()].some((state) => state.done !== undefined)) {
      output.forEach((item, index) => {
        if (isOutputItem(item)) events.push(...this.#itemDone(index, item));
      });
    }
    this.#ended = true;
    const usage = readUsage(r['usage']);
    if (usage) {
      const cost = responseCost(usage, reportedCost(r['usage']), this.#options.pricing);
      events.push({ type: 'usage', usage, ...(cost !== undefined && { cost }) });
    }
    const items = [...this.#items]
      .filter(([, state]) => state.done !== undefined)
      .sort(([a], [b]) => a - b)
      .map(([, state]) => state.done!);
    if (items.length > 0) {
      events.push({
        type: 'response_items',
        provider: this.#options.providerId,
        model: this.#options.model,
        items,
      });
    }
    const model = r['model'];
    events.push({
      type: 'done',
      finishReason: this.#finishReason(type, r),
      ...(this.#responseId !== undefined && { responseId: this.#responseId }),
      ...(typeof model === 'string' && model !== '' && { responseModel: model }),
    });
    return events;
  }

  #finishReason(type: string, response: Json): string {
    if (type === 'response.completed') return this.#sawFunctionCall ? 'tool_calls' : 'stop';
    const reason = (response['incomplete_details'] as Json | null | undefined)?.['reason'];
    if (reason === 'content_filter') return 'content_filter';
    return reason === undefined || reason === null || reason === 'max_output_tokens'
      ? 'length'
      : String(reason);
  }
}

/** The text of a message item: its `output_text` and `refusal` parts. */
function messageText(item: OutputItem): string {
  const content = Array.isArray(item['content']) ? (item['content'] as unknown[]) : [];
  return content
    .map((part) => {
      const p = (part ?? {}) as Json;
      if (p['type'] === 'output_text' && typeof p['text'] === 'string') return p['text'];
      if (p['type'] === 'refusal' && typeof p['refusal'] === 'string') return p['refusal'];
      return '';
    })
    .join('');
}

function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined;
}

/** `response.usage` → our usage (cached and reasoning tokens when reported); `null` without one. */
export function readUsage(value: unknown): TokenUsage | null {
  if (typeof value !== 'object' || value === null) return null;
  const u = value as Json;
  const input = count(u['input_tokens']);
  const output = count(u['output_tokens']);
  if (input === undefined || output === undefined) return null;
  const usage: TokenUsage = {
    inputTokens: input,
    outputTokens: output,
    totalTokens: count(u['total_tokens']) ?? input + output,
  };
  const cached = count((u['input_tokens_details'] as Json | null | undefined)?.['cached_tokens']);
  if (cached !== undefined) usage.cachedInputTokens = cached;
  const reasoning = count((u['output_tokens_details'] as Json | null | undefined)?.['reasoning_tokens']);
  if (reasoning !== undefined) usage.reasoningTokens = reasoning;
  return usage;
}

/** A cost the server reported, in USD: OpenRouter's `cost`, or xAI's `cost_in_usd_ticks`. */
function reportedCost(value: unknown): number | undefined {
  const u = value as Json;
  const cost = u['cost'];
  if (typeof cost === 'number' && Number.isFinite(cost) && cost >= 0) return cost;
  const ticks = u['cost_in_usd_ticks'];
  return typeof ticks === 'number' && Number.isFinite(ticks) && ticks >= 0
    ? ticks / TICKS_PER_USD
    : undefined;
}
