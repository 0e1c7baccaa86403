/**
 * {@link ScriptedModelProvider}: a fake {@link ModelProvider} that plays back scripted
 * responses, so an agent can be tested without a network; {@link UnscriptedModelCallError}, what
 * it fails with when the agent makes a call the script has no response for; and {@link reply},
 * builders for the common responses.
 * @module
 */
import { Errors } from '../errors.js';
import { generateId } from '../ids.js';
import { READS_REQUEST_ONLY, type ModelProvider } from '../ports/model-provider.js';
import { sleep } from '../timeout.js';
import type { ChatEvent, ChatRequest, ModelInfo, TokenUsage } from '../types.js';

/**
 * One item of a scripted response: a {@link ChatEvent} to stream, or an instruction —
 * `delay` waits `ms` milliseconds, `throw` throws `error` as-is, `wait` holds the stream until
 * `until` settles (a test's way to hold a response open until it releases it).
 */
export type ScriptItem =
  | ChatEvent
  | { type: 'delay'; ms: number }
  | { type: 'throw'; error: unknown }
  | { type: 'wait'; until: Promise<unknown> };

/** The items of one model response, in stream order. */
export type ScriptedResponse = ScriptItem[];

/**
 * One scripted call: a fixed response, or a function that builds the response from the request
 * (a deep copy) and the zero-based index of the call.
 */
export type ScriptStep = ScriptedResponse | ((request: ChatRequest, callIndex: number) => ScriptedResponse);

/** Options of {@link ScriptedModelProvider}. */
export interface ScriptedModelProviderOptions {
  /** Provider id. Default `'scripted'`. */
  id?: string;
  /** Models served. Default: one model, {@link SCRIPTED_MODEL}. */
  models?: ModelInfo[];
  /** Responses, one per `chat` call, in order. More can be added with `enqueue`. */
  script?: ScriptStep[];
}

/** The model a {@link ScriptedModelProvider} serves by default: `scripted-model`. */
export const SCRIPTED_MODEL: ModelInfo = {
  id: 'scripted-model',
  displayName: 'Scripted model',
  contextWindow: 128_000,
  capabilities: { toolUse: true, vision: true, streaming: true },
};

const UNSCRIPTED_MARKER = Symbol.for('youyou-agent.unscripted-model-call');

/** How much of the last user text an {@link UnscriptedModelCallError} message quotes. */
const QUOTED_TEXT_CHARS = 80;

/**
 * What a {@link ScriptedModelProvider} throws for a call it has no scripted response left for:
 * the agent asked the model something the test did not expect. The message names the call —
 * its number, purpose, model and the last user text — so the failure says where the script and
 * the agent parted ways.
 *
 * It cannot go unnoticed: the runtime turns it into the turn's (or the memory step's) error, an
 * `AgentError` whose `cause` is this error; and the provider keeps it, so
 * {@link ScriptedModelProvider.assertConsumed} throws it even in a test that never looks at
 * `turn.result`.
 *
 * @example
 * const provider = new ScriptedModelProvider({ script: [reply.text('Hello!')] });
 * // ... build an agent with it, then two turns ...
 * const { status, error } = await secondTurn.result; // 'failed'
 * UnscriptedModelCallError.isInstance(error?.cause);  // true
 * provider.assertConsumed();
 * // throws UnscriptedModelCallError: ScriptedModelProvider: no scripted response for call #2
 * //   (purpose 'turn', model 'scripted-model', last user text "And tomorrow?")
 */
export class UnscriptedModelCallError extends Error {
  /** The zero-based index of the call, as step functions see it (call #1 is index 0). */
  readonly callIndex: number;
  /** A deep copy of the request that found no scripted response. */
  readonly request: ChatRequest;
  /** @internal marker that survives duplicate copies of the package in one bundle. */
  readonly [UNSCRIPTED_MARKER] = true;

  constructor(callIndex: number, request: ChatRequest) {
    const lastUserText = lastUserTextOf(request);
    const quoted =
      lastUserText === undefined
        ? 'no user text'
        : `last user text ${JSON.stringify(truncate(lastUserText, QUOTED_TEXT_CHARS))}`;
    super(
      `ScriptedModelProvider: no scripted response for call #${callIndex + 1} ` +
        `(purpose '${request.purpose}', model '${request.model}', ${quoted})`,
    );
    this.name = 'UnscriptedModelCallError';
    this.callIndex = callIndex;
    this.request = request;
  }

  /** True for any `UnscriptedModelCallError`, even one made by another copy of this package. */
  static isInstance(value: unknown): value is UnscriptedModelCallError {
    return typeof value === 'object' && value !== null && UNSCRIPTED_MARKER in value;
  }
}

/**
 * A {@link ModelProvider} that answers each `chat` call with the next scripted response.
 *
 * - Each call records a deep copy of its request (`requests`), takes the next step, and streams
 *   its items in order. With no step left it throws an {@link UnscriptedModelCallError} and
 *   keeps it (`unscriptedCalls`), so `assertConsumed()` throws it too.
 * - Before each item it checks the signal: once aborted, it throws `REQUEST_CANCELLED` and
 *   counts the stream in `aborted`. A `delay` or `wait` in progress ends at once on abort.
 *
 * @example
 * const provider = new ScriptedModelProvider({
 *   script: [
 *     reply.toolCalls([{ name: 'get_weather', arguments: { city: 'Oslo' } }]),
 *     reply.text('It is sunny in Oslo.', { chunks: 3 }),
 *   ],
 * });
 * // ... build an agent with it, send a message ...
 * provider.assertConsumed();
 * provider.requests[1]?.messages; // what the model saw on the second call
 */
export class ScriptedModelProvider implements ModelProvider {
  /** It only reads its requests (it copies what it keeps): no per-request copy of the history. */
  readonly [READS_REQUEST_ONLY] = true;
  /** Provider id (default `'scripted'`). */
  readonly id: string;
  /** Models served (default `[SCRIPTED_MODEL]`). */
  readonly models: readonly ModelInfo[];
  readonly #script: ScriptStep[];
  readonly #requests: ChatRequest[] = [];
  readonly #unscripted: UnscriptedModelCallError[] = [];
  #aborted = 0;

  constructor(options: ScriptedModelProviderOptions = {}) {
    this.id = options.id ?? 'scripted';
    this.models = options.models ?? [SCRIPTED_MODEL];
    this.#script = [...(options.script ?? [])];
  }

  /** Deep copies of every request received, in call order. */
  get requests(): readonly ChatRequest[] {
    return this.#requests;
  }

  /** How many times `chat` has been called. */
  get calls(): number {
    return this.#requests.length;
  }

  /** How many scripted steps are still unused. */
  get remaining(): number {
    return this.#script.length;
  }

  /** How many streams ended because their signal aborted. */
  get aborted(): number {
    return this.#aborted;
  }

  /** The calls that found no scripted response, in call order (each was thrown to its caller). */
  get unscriptedCalls(): readonly UnscriptedModelCallError[] {
    return this.#unscripted;
  }

  /** Adds responses after those already scripted. Returns the provider, for chaining. */
  enqueue(...steps: ScriptStep[]): this {
    this.#script.push(...steps);
    return this;
  }

  /**
   * Throws when the calls and the script disagree: the first {@link UnscriptedModelCallError} if
   * the agent made a call the script had no response for, else an `Error` if scripted steps are
   * left over (the agent made fewer calls than scripted).
   */
  assertConsumed(): void {
    const [unscripted] = this.#unscripted;
    if (unscripted) throw unscripted;
    const left = this.#script.length;
    if (left > 0) {
      throw new Error(
        `ScriptedModelProvider: ${left} scripted response${left === 1 ? ' was' : 's were'} not used (${this.calls} call${this.calls === 1 ? '' : 's'} made)`,
      );
    }
  }

  /** Streams the next scripted response for `request`. */
  async *chat(request: ChatRequest, signal: AbortSignal): AsyncGenerator<ChatEvent, void, undefined> {
    const callIndex = this.#requests.length;
    this.#requests.push(deepCopy(request));
    let completed = false;
    try {
      // An already-aborted call does not use up a step.
      if (signal.aborted) throw Errors.requestCancelled();
      const step = this.#script.shift();
      if (step === undefined) {
        const unscripted = new UnscriptedModelCallError(callIndex, deepCopy(request));
        this.#unscripted.push(unscripted);
        throw unscripted;
      }
      const items = typeof step === 'function' ? step(deepCopy(request), callIndex) : step;
      for (const item of items) {
        // Runs before every item, so also right after the consumer resumes us from a yield.
        if (signal.aborted) throw Errors.requestCancelled();
        switch (item.type) {
          case 'delay':
            await sleep(item.ms, signal).catch(() => {
              throw Errors.requestCancelled();
            });
            break;
          case 'wait':
            await untilSettledOrAborted(item.until, signal);
            break;
          case 'throw':
            throw item.error;
          default:
            yield item;
        }
      }
      completed = true;
    } finally {
      // Counted here so a consumer that aborts and then stops iterating (return()) counts too.
      if (!completed && signal.aborted) this.#aborted += 1;
    }
  }
}

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

/** The text of the last user message of `request`, if it has one with text. */
function lastUserTextOf(request: ChatRequest): string | undefined {
  for (let i = request.messages.length - 1; i >= 0; i -= 1) {
    const message = request.messages[i];
    if (message?.type !== 'user') continue;
    const text = message.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join(' ');
    if (text) return text;
  }
  return undefined;
}

/** `text`, cut to `max` code points with an ellipsis when longer. */
function truncate(text: string, max: number): string {
  const chars = Array.from(text);
  return chars.length <= max ? text : `${chars.slice(0, max).join('')}…`;
}

/** A deep copy, or the value itself when it cannot be cloned (it then holds e.g. a function). */
function deepCopy<T>(value: T): T {
  try {
    return structuredClone(value);
  } catch {
    return value;
  }
}

/** Waits for `until`; its rejection is thrown as-is; an abort rejects with `REQUEST_CANCELLED`. */
function untilSettledOrAborted(until: Promise<unknown>, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(Errors.requestCancelled());
    signal.addEventListener('abort', onAbort, { once: true });
    until.then(
      () => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
