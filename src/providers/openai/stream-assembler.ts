/**
 * Chat Completions stream chunks → our `ChatEvent`s. Pure: fed parsed chunk objects, it keeps the
 * state one response needs (tool calls being assembled, the finish reason, the last usage) and
 * does no I/O, so it is tested without a server and shared by any transport.
 * @module
 */
import { generateId as defaultGenerateId } from '../../ids.js';
import type { ChatEvent, ModelPricing, TokenUsage } from '../../types.js';
import { costOf } from '../cost.js';
import { streamEndedEarlyError, streamErrorObjectError } from './errors.js';

/**
 * The fields of a stream chunk the assembler reads. Everything is optional and loosely typed on
 * purpose: compatible servers differ (DeepSeek's `reasoning_content`, OpenRouter's `reasoning`,
 * `reasoning_details` and `usage.cost`, Azure's `choices: []` filter chunks), and the values are
 * checked at run time, not trusted.
 */
export interface WireChunk {
  /** The response's id and the model that answered (on every chunk). */
  id?: unknown;
  model?: unknown;
  choices?: readonly WireChoice[] | null;
  usage?: WireUsage | null;
  /** Groq: the usage again, and the only usage when the request did not ask for it. */
  x_groq?: { usage?: WireUsage | null } | null;
  /** An error reported inside the stream (OpenRouter, Groq's `event: error`). */
  error?: unknown;
}

/**
 * One choice of a chunk; only choice 0 is read. Requests never ask for `n > 1`; a response that
 * has more choices anyway (`n=3`) is read as its first, while its usage counts all of them.
 */
export interface WireChoice {
  index?: number;
  delta?: WireDelta | null;
  finish_reason?: string | null;
}

/** What a chunk adds to the response. */
export interface WireDelta {
  /** Text, or (Mistral's magistral models) a list of text and `thinking` parts. */
  content?: string | readonly WireContentPart[] | null;
  /** A refusal is delivered as assistant text. */
  refusal?: string | null;
  /** DeepSeek, vLLM. */
  reasoning_content?: string | null;
  /** OpenRouter, Groq, Ollama. */
  reasoning?: string | null;
  /** OpenRouter; read only when neither field above has text (it repeats `reasoning`). */
  reasoning_details?: readonly unknown[] | null;
  tool_calls?: readonly WireToolCallDelta[] | null;
}

/**
 * One part of an array-form `content`: `{ type: 'text', text }` is answer text,
 * `{ type: 'thinking', thinking: [{ type: 'text', text }] }` is reasoning. Other types are skipped.
 */
export interface WireContentPart {
  type?: string;
  text?: unknown;
  thinking?: unknown;
}

/** A piece of a tool call: `id` and `name` usually once, `arguments` in many pieces. */
export interface WireToolCallDelta {
  index?: number;
  id?: string | null;
  function?: { name?: string | null; arguments?: unknown } | null;
}

/** Token usage as servers report it. */
export interface WireUsage {
  prompt_tokens?: number | null;
  completion_tokens?: number | null;
  total_tokens?: number | null;
  prompt_tokens_details?: { cached_tokens?: number | null } | null;
  completion_tokens_details?: { reasoning_tokens?: number | null } | null;
  /** DeepSeek's name for cached input tokens. */
  prompt_cache_hit_tokens?: number | null;
  /** Together's (through the Hugging Face router) name for cached input tokens. */
  cached_tokens?: number | null;
  /** Azure AI Foundry's place for reasoning tokens. */
  reasoning_tokens?: number | null;
  /** USD, when the server bills per request (OpenRouter). */
  cost?: number | null;
  /** xAI's cost of the request, in ticks of 10⁻¹⁰ USD. */
  cost_in_usd_ticks?: number | null;
}

/** Options of {@link ChatStreamAssembler}. */
export interface StreamAssemblerOptions {
  /** Named in error messages. */
  providerId: string;
  /** Prices of the requested model; used for `cost` when the server reports none. */
  pricing?: ModelPricing | undefined;
  /** Makes an id for a tool call that arrived without one. Default: a random UUID. */
  generateId?: () => string;
}

interface PendingToolCall {
  id: string | undefined;
  name: string;
  arguments: string;
  /** Its position in the response: the `index` of its `tool_call_delta`s. */
  position: number;
  /** Whether a `tool_call_delta` named the call yet (the first one carries its id and name). */
  announced: boolean;
}

const NO_EVENTS: readonly ChatEvent[] = /* @__PURE__ */ Object.freeze([]);

/**
 * Assembles one streamed response. Call {@link push} for every chunk in order (it returns the
 * text and reasoning deltas to emit now), then {@link finish} once the stream has ended (it
 * returns the whole tool calls, the usage and `done`). One instance per response.
 *
 * - Text (`content`, `refusal`) and reasoning (`reasoning_content`, else `reasoning`, else the
 *   text of `reasoning_details`) are emitted as they arrive; empty pieces are skipped. An
 *   array-form `content` gives text for its `text` parts and reasoning for its `thinking` parts,
 *   in their order.
 * - Tool calls are assembled by `index`, in order of first appearance. While their arguments
 *   stream, each piece is also emitted as a `tool_call_delta` (`index` is the call's position in
 *   the response; the first delta, once the call has a name, carries its id and name): an app can
 *   show a call being written. The whole call still follows. A piece that names a
 *   different `id` than the call already at its index starts a new call (Ollama sends every
 *   parallel call with index 0). Whole calls in one piece work the same way.
 * - The finish reason is sticky: the last non-null one wins (a usage chunk after it has none).
 *   A stream that ends with `[DONE]` but never named one (Snowflake Cortex) finished normally:
 *   `tool_calls` when it produced tool calls, else `stop`.
 * - At most one `usage` event, from the last usage reported (servers that repeat a growing
 *   usage on every chunk give the final count), emitted just before `done`; its `cost` is the
 *   server's (`usage.cost`, or xAI's `cost_in_usd_ticks`) when reported, else computed from
 *   `pricing`. See {@link toTokenUsage} for the counts.
 * - A chunk carrying an `error` object throws a `PROVIDER_ERROR` (retryable when transient).
 */
export class ChatStreamAssembler {
  readonly #providerId: string;
  readonly #pricing: ModelPricing | undefined;
  readonly #generateId: () => string;
  readonly #toolCalls: PendingToolCall[] = [];
  readonly #toolCallsByIndex = new Map<number, PendingToolCall>();
  #finishReason: string | undefined;
  #usage: WireUsage | undefined;
  /** The first chunk with an id (Azure's first one, its prompt filter results, has none): the response's id and model. */
  #first: WireChunk | undefined;

  constructor(options: StreamAssemblerOptions) {
    this.#providerId = options.providerId;
    this.#pricing = options.pricing;
    this.#generateId = options.generateId ?? defaultGenerateId;
  }

  /** The finish reason seen so far, if any: once set, the model has finished its output. */
  get finishReason(): string | undefined {
    return this.#finishReason;
  }

  /** Takes one chunk; returns the deltas to emit now. Throws on an in-stream error object. */
  push(chunk: WireChunk): readonly ChatEvent[] {
    if (chunk.error) throw streamErrorObjectError(this.#providerId, chunk.error);
    if (!this.#first?.id) this.#first = chunk;
    const usage = objectOrUndefined(chunk.usage) ?? objectOrUndefined(chunk.x_groq?.usage);
    if (usage) this.#usage = usage;
    if (!Array.isArray(chunk.choices)) return NO_EVENTS;
    let events: ChatEvent[] | undefined;
    for (const choice of chunk.choices as readonly WireChoice[]) {
      if ((choice.index ?? 0) !== 0) continue;
      if (typeof choice.finish_reason === 'string' && choice.finish_reason) {
        this.#finishReason = choice.finish_reason;
      }
      const delta = choice.delta;
      if (!delta) continue;
      const reasoning = reasoningText(delta);
      if (reasoning) (events ??= []).push({ type: 'reasoning_delta', text: reasoning });
      if (typeof delta.content === 'string' && delta.content) {
        (events ??= []).push({ type: 'text_delta', text: delta.content });
      } else if (Array.isArray(delta.content)) {
        for (const part of delta.content as readonly unknown[]) {
          const event = contentPartEvent(part);
          if (event) (events ??= []).push(event);
        }
      }
      if (typeof delta.refusal === 'string' && delta.refusal) {
        (events ??= []).push({ type: 'text_delta', text: delta.refusal });
      }
      if (Array.isArray(delta.tool_calls)) {
        for (const piece of delta.tool_calls as readonly WireToolCallDelta[]) {
          const event = this.#addToolCallPiece(piece);
          if (event) (events ??= []).push(event);
        }
      }
    }
    return events ?? NO_EVENTS;
  }

  /**
   * Ends the response: the tool calls, the usage (if reported) and `done`. `endMarkerSeen` says
   * the stream ended with `[DONE]`. Throws a retryable `PROVIDER_ERROR` when neither a finish
   * reason nor `[DONE]` arrived: the stream broke before the model finished.
   */
  finish(endMarkerSeen = false): ChatEvent[] {
    let finishReason = this.#finishReason;
    if (finishReason === undefined) {
      if (!endMarkerSeen) throw streamEndedEarlyError(this.#providerId);
      finishReason = this.#toolCalls.length > 0 ? 'tool_calls' : 'stop';
    }
    const events: ChatEvent[] = this.#toolCalls.map((call) => ({
      type: 'tool_call',
      callId: call.id ?? this.#generateId(),
      toolName: call.name,
      arguments: call.arguments,
    }));
    if (this.#usage) {
      const usage = toTokenUsage(this.#usage);
      const cost = reportedCost(this.#usage) ?? (this.#pricing && costOf(usage, this.#pricing));
      events.push(cost === undefined ? { type: 'usage', usage } : { type: 'usage', usage, cost });
    }
    const { id, model } = this.#first ?? {};
    events.push({
      type: 'done',
      finishReason,
      ...(typeof id === 'string' && id && { responseId: id }),
      ...(typeof model === 'string' && model && { responseModel: model }),
    });
    return events;
  }

  /**
   * Adds one piece to its call; returns the `tool_call_delta` to emit: the arguments it added,
   * and the call's id and name on the first delta that has a name. Nothing for a piece that adds
   * nothing yet.
   */
  #addToolCallPiece(piece: WireToolCallDelta): ChatEvent | undefined {
    const index = typeof piece.index === 'number' ? piece.index : undefined;
    const id = typeof piece.id === 'string' && piece.id ? piece.id : undefined;
    // Without an index (old Ollama), a piece continues the latest call.
    let call = index === undefined ? this.#toolCalls.at(-1) : this.#toolCallsByIndex.get(index);
    if (!call || (id !== undefined && call.id !== undefined && call.id !== id)) {
      call = { id, name: '', arguments: '', position: this.#toolCalls.length, announced: false };
      this.#toolCalls.push(call);
      if (index !== undefined) this.#toolCallsByIndex.set(index, call);
    }
    call.id ??= id;
    const fn = piece.function;
    if (!fn) return undefined;
    if (!call.name && typeof fn.name === 'string') call.name = fn.name;
    const args = fn.arguments;
    let added = '';
    if (typeof args === 'string') added = args;
    // Some proxies send the arguments as an object instead of JSON text.
    else if (typeof args === 'object' && args !== null) added = JSON.stringify(args);
    call.arguments += added;
    if (!call.name || (call.announced && added === '')) return undefined;
    // The first delta carries all the text so far (in case pieces came before the name).
    const event: ChatEvent = {
      type: 'tool_call_delta',
      index: call.position,
      argumentsDelta: call.announced ? added : call.arguments,
    };
    if (!call.announced) {
      call.announced = true;
      event.toolName = call.name;
      if (call.id !== undefined) event.callId = call.id;
    }
    return event;
  }
}

/** A text or thinking part of an array-form `content` as its event; nothing for others or empty ones. */
function contentPartEvent(part: unknown): ChatEvent | undefined {
  if (typeof part !== 'object' || part === null) return undefined;
  const { type, text, thinking } = part as WireContentPart;
  if (type === 'text') return typeof text === 'string' && text ? { type: 'text_delta', text } : undefined;
  if (type !== 'thinking') return undefined;
  // The documented shape is a list of text parts; a plain string is taken too.
  let reasoning = typeof thinking === 'string' ? thinking : '';
  if (Array.isArray(thinking)) {
    for (const piece of thinking as readonly unknown[]) {
      const pieceText = (piece as WireContentPart | null)?.text;
      if ((piece as WireContentPart | null)?.type === 'text' && typeof pieceText === 'string')
        reasoning += pieceText;
    }
  }
  return reasoning ? { type: 'reasoning_delta', text: reasoning } : undefined;
}

function objectOrUndefined(value: WireUsage | null | undefined): WireUsage | undefined {
  return value && typeof value === 'object' ? value : undefined;
}

/** The reasoning text of a delta, from the first field that has some (never two of them). */
function reasoningText(delta: WireDelta): string {
  if (typeof delta.reasoning_content === 'string' && delta.reasoning_content) {
    return delta.reasoning_content;
  }
  if (typeof delta.reasoning === 'string' && delta.reasoning) return delta.reasoning;
  if (!Array.isArray(delta.reasoning_details)) return '';
  let text = '';
  for (const detail of delta.reasoning_details as readonly unknown[]) {
    const piece = (detail as { text?: unknown } | null)?.text;
    if (typeof piece === 'string') text += piece;
  }
  return text;
}

/** A count from the wire, when it is a usable one. */
function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? Math.round(value) : undefined;
}

/**
 * Server usage → `TokenUsage`; cached and reasoning counts only when the server sent them.
 *
 * - Cached input tokens: `prompt_tokens_details.cached_tokens`, else DeepSeek's
 *   `prompt_cache_hit_tokens`, else a top-level `cached_tokens` (Together).
 * - Reasoning tokens: `completion_tokens_details.reasoning_tokens`, else a top-level
 *   `reasoning_tokens` (Azure AI Foundry).
 * - Output tokens include the reasoning tokens. A server that counts them apart (xAI: its
 *   `total_tokens` is prompt + completion + reasoning, and it bills the reasoning as output) gets
 *   them added to `outputTokens`, so that the counts add up to the total and the cost is right.
 */
export function toTokenUsage(wire: WireUsage): TokenUsage {
  const inputTokens = count(wire.prompt_tokens) ?? 0;
  const completionTokens = count(wire.completion_tokens) ?? 0;
  const reasoning = count(wire.completion_tokens_details?.reasoning_tokens) ?? count(wire.reasoning_tokens);
  const reported = count(wire.total_tokens);
  const reasoningApart =
    reasoning !== undefined &&
    reasoning > 0 &&
    reported !== inputTokens + completionTokens &&
    reported === inputTokens + completionTokens + reasoning;
  const outputTokens = reasoningApart ? completionTokens + reasoning : completionTokens;
  const usage: TokenUsage = {
    inputTokens,
    outputTokens,
    totalTokens: reported ?? inputTokens + outputTokens,
  };
  const cached =
    count(wire.prompt_tokens_details?.cached_tokens) ??
    count(wire.prompt_cache_hit_tokens) ??
    count(wire.cached_tokens);
  if (cached !== undefined) usage.cachedInputTokens = cached;
  if (reasoning !== undefined) usage.reasoningTokens = reasoning;
  return usage;
}

/** xAI ticks per USD. */
const TICKS_PER_USD = 1e10;

function reportedCost(wire: WireUsage): number | undefined {
  const cost = nonNegative(wire.cost);
  if (cost !== undefined) return cost;
  const ticks = nonNegative(wire.cost_in_usd_ticks);
  return ticks === undefined ? undefined : ticks / TICKS_PER_USD;
}

function nonNegative(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
}
