/**
 * `OpenAIProvider`: a {@link ModelProvider} over streaming Chat Completions, for OpenAI and any
 * OpenAI-compatible server. With the `openai` package's public streaming and error modules over
 * `fetch` by default, or through an `openai` client the app passes in.
 * @module
 */
import * as z from 'zod/mini';
import * as Errors from '../../error-constructors.js';
import { READS_REQUEST_ONLY, type ModelProvider } from '../../ports/model-provider.js';
import type { ChatEvent, ChatRequest, ModelInfo, ModelPricing } from '../../types.js';
import { parseInput } from '../../validate.js';
import type { ChatChunkStream, ChatRequestOptions, OpenAIChatClient } from './chat-client.js';
import { END_MARKER_SEEN } from './chunk-stream.js';
import { modelInfoOf, OpenAIProviderConfigSchema, type OpenAIProviderConfig } from './config.js';
import { createFetchChatClient } from './fetch-chat-client.js';
import { assertClientAlone, pricingByModel, redactorFor } from './provider-setup.js';
import type { SecretRedactor } from './redact-secrets.js';
import { isTransportFailure, openStream, sdkFailure } from './sdk-stream.js';
import { ChatStreamAssembler, type WireChunk } from './stream-assembler.js';
import { toWireRequest, type MaxTokensField } from './to-wire.js';

/** Options of {@link OpenAIProvider}. */
export interface OpenAIProviderOptions extends OpenAIProviderConfig {
  /** The provider's id. Default `'openai'`. */
  id?: string;
  /**
   * A ready `openai` client of any version the app has (e.g. `AzureOpenAI`, or one with a custom
   * `fetch`). Exclusive with `apiKey`, `baseURL` and `dangerouslyAllowBrowser`, which configure
   * the client this provider would otherwise create. Its own retries are bypassed per request.
   */
  client?: OpenAIChatClient;
}

const OpenAIProviderOptionsSchema = z.extend(OpenAIProviderConfigSchema, {
  id: z.optional(z.string().check(z.minLength(1))),
  // Structural, so any copy of the SDK (or a subclass such as AzureOpenAI) is accepted.
  client: z.optional(
    z.custom<OpenAIChatClient>(
      (value) =>
        typeof (value as { chat?: { completions?: { create?: unknown } } } | null)?.chat?.completions
          ?.create === 'function',
      { message: 'expected an openai client' },
    ),
  ),
});

/**
 * Streams Chat Completions from OpenAI (default) or any OpenAI-compatible `baseURL`. Needs the
 * `openai` package (an optional peer dependency, 6.49 or later, before 8): its SSE stream and
 * error classes over `fetch`, or the whole SDK client you pass as `client`.
 *
 * - Sends the system prompt and history (see `toWireMessages`), the tools as functions, and
 *   `stream_options: { include_usage: true }`; `maxOutputTokens` goes in `maxTokensField`
 *   (default `max_completion_tokens`; use `max_tokens` for servers that only know that one).
 * - Emits text and reasoning deltas as they arrive (also from Mistral's array-form `content`:
 *   `text` parts are text, `thinking` parts reasoning), then the whole tool calls, at most one
 *   `usage` (with `cost` from the server or from `ModelInfo.pricing`), and `done`.
 * - A stream is complete once it has a finish reason, or once it ends with `data: [DONE]`: then
 *   `done` says `tool_calls` if the response has tool calls, else `stop` (Snowflake Cortex never
 *   sends a finish reason). A stream that ends with neither broke: a retryable error.
 * - It never retries (a `client` passed in gets `maxRetries: 0` on every request): the runtime
 *   owns retries. Failures are `PROVIDER_ERROR`s, retryable for HTTP 408/409/429/5xx, network
 *   failures and a stream that breaks before the finish reason; with `retryAfterMs` when the
 *   server sent `Retry-After` or `retry-after-ms`.
 * - The API key and the values of `headers` (8 characters or longer) are replaced by
 *   `[redacted]` in every error it throws, message and `cause` alike (the cause becomes a
 *   redacted copy that keeps only plain data).
 * - Aborting `signal` ends the HTTP request at once and throws `REQUEST_CANCELLED`.
 *
 * Without a `client` it logs nothing: every failure reaches the runtime as an `AgentError`. Pass
 * your own `client` for the SDK's request logging, a custom `fetch`, Azure, and the like. The
 * provider reads that client's responses itself (through the SDK's `asResponse()`), so it sees
 * `[DONE]` there too; a wrapper whose `create()` returns only the SDK's chunk stream hides the
 * marker, and a stream without a finish reason then fails as broken.
 * @example
 * // A local server needs no key; a model by id alone gets conservative defaults.
 * const local = new OpenAIProvider({
 *   baseURL: 'http://127.0.0.1:11434/v1', maxTokensField: 'max_tokens', models: ['qwen3:8b'],
 * });
 * const openai = new OpenAIProvider({
 *   apiKey: process.env.OPENAI_API_KEY,
 *   models: [{ id: 'gpt-4.1-mini', displayName: 'GPT-4.1 mini', contextWindow: 1_047_576,
 *              capabilities: { toolUse: true, vision: true, streaming: true } }],
 * });
 */
export class OpenAIProvider implements ModelProvider {
  /** It only reads its requests (it copies what it keeps): no per-request copy of the history. */
  readonly [READS_REQUEST_ONLY] = true;
  /** @inheritDoc */
  readonly id: string;
  /** @inheritDoc */
  readonly models: readonly ModelInfo[];
  readonly #client: OpenAIChatClient;
  readonly #headers: Record<string, string> | undefined;
  readonly #maxTokensField: MaxTokensField;
  readonly #pricing: ReadonlyMap<string, ModelPricing>;
  readonly #redactor: SecretRedactor;

  /** Throws `INVALID_INPUT` for invalid options (or with neither an API key nor a `baseURL`). */
  constructor(options: OpenAIProviderOptions) {
    const parsed = parseInput(OpenAIProviderOptionsSchema, options, 'OpenAIProvider options');
    assertClientAlone('OpenAIProvider', parsed);
    this.id = parsed.id ?? 'openai';
    this.models = Object.freeze(parsed.models.map((entry) => Object.freeze(modelInfoOf(entry))));
    this.#headers = parsed.headers;
    this.#maxTokensField = parsed.maxTokensField ?? 'max_completion_tokens';
    this.#pricing = pricingByModel(this.models);
    this.#client = parsed.client ?? createClient(parsed);
    this.#redactor = redactorFor(this.#client, parsed.headers);
  }

  /** Streams one response; see the class description for the events and errors. */
  async *chat(request: ChatRequest, signal: AbortSignal): AsyncGenerator<ChatEvent, void, undefined> {
    try {
      yield* this.#chat(request, signal);
    } catch (error) {
      throw this.#redactor.error(sdkFailure(this.id, error, signal, this.#redactor));
    }
  }

  async *#chat(request: ChatRequest, signal: AbortSignal): AsyncGenerator<ChatEvent, void, undefined> {
    const body = toWireRequest(request, this.#maxTokensField);
    let stream: ChatChunkStream;
    try {
      stream = await this.#request(body, {
        signal,
        maxRetries: 0,
        ...(this.#headers && { headers: this.#headers }),
      });
    } catch (error) {
      throw sdkFailure(this.id, error, signal, this.#redactor);
    }
    const assembler = new ChatStreamAssembler({
      providerId: this.id,
      pricing: this.#pricing.get(request.model),
    });
    const chunks = stream[Symbol.asyncIterator]();
    let ended = false;
    let endMarkerSeen = false;
    try {
      for (;;) {
        let next: IteratorResult<unknown>;
        try {
          next = await chunks.next();
        } catch (error) {
          // Once the finish reason is in, the output is complete: a connection that drops before
          // the usage chunk or `[DONE]` costs only the usage (like streams recorded without [DONE]).
          if (assembler.finishReason !== undefined && !signal.aborted && isTransportFailure(error)) break;
          throw sdkFailure(this.id, error, signal, this.#redactor);
        }
        // A stream may end quietly when the request is aborted (the SDK's does); we do not.
        if (signal.aborted) throw Errors.requestCancelled();
        if (next.done) {
          endMarkerSeen = next.value === END_MARKER_SEEN;
          break;
        }
        yield* assembler.push(next.value as WireChunk);
      }
      const tail = assembler.finish(endMarkerSeen);
      ended = true;
      yield* tail;
    } finally {
      // Stopped early (consumer returned, or an error): close the HTTP request now.
      if (!ended) stream.controller.abort();
    }
  }

  /** Sends the request (see {@link openStream}). */
  #request(body: ReturnType<typeof toWireRequest>, options: ChatRequestOptions): Promise<ChatChunkStream> {
    return openStream(this.#client.chat.completions.create(body, options), options.signal);
  }
}

function createClient(config: z.infer<typeof OpenAIProviderOptionsSchema>): OpenAIChatClient {
  return createFetchChatClient({
    apiKey: config.apiKey,
    baseURL: config.baseURL,
    dangerouslyAllowBrowser: config.dangerouslyAllowBrowser,
  });
}
