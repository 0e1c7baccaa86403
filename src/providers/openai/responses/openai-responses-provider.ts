/**
 * `OpenAIResponsesProvider`: a {@link ModelProvider} over OpenAI's streaming Responses API
 * (`POST /responses`), for OpenAI and the servers that implement it. Reasoning survives tool
 * rounds and reloads without server-side state: the response's output items are handed to the
 * runtime (`response_items`), stored with the assistant message, and sent back verbatim.
 * @module
 */
import * as z from 'zod/mini';
import * as Errors from '../../../error-constructors.js';
import { READS_REQUEST_ONLY, type ModelProvider } from '../../../ports/model-provider.js';
import type { ChatEvent, ChatRequest, ModelInfo, ModelPricing } from '../../../types.js';
import { parseInput } from '../../../validate.js';
import type { ChatChunkStream } from '../chat-client.js';
import { modelInfoOf, OpenAIProviderConfigSchema, type OpenAIProviderConfig } from '../config.js';
import { createFetchStreamPost } from '../fetch-chat-client.js';
import { assertClientAlone, pricingByModel, redactorFor } from '../provider-setup.js';
import type { SecretRedactor } from '../redact-secrets.js';
import { isTransportFailure, openStream, sdkFailure } from '../sdk-stream.js';
import { withPermanentCode } from './response-errors.js';
import type { OpenAIResponsesClient } from './responses-client.js';
import { ResponsesStreamReader } from './stream-reader.js';
import { toResponsesRequest } from './to-wire.js';

/** Options of {@link OpenAIResponsesProvider}: those of `OpenAIProvider`, and `store`. */
export interface OpenAIResponsesProviderOptions extends Omit<OpenAIProviderConfig, 'maxTokensField'> {
  /** The provider's id; stored items go back only to a provider of the same id. Default `'openai-responses'`. */
  id?: string;
  /**
   * A ready `openai` client of any version the app has (e.g. `AzureOpenAI`). Exclusive with
   * `apiKey`, `baseURL` and `dangerouslyAllowBrowser`. Its own retries are bypassed per request.
   */
  client?: OpenAIResponsesClient;
  /**
   * Whether the server keeps the responses (`store`). Default `false`: nothing is kept on the
   * server, the encrypted reasoning is asked for and sent back with the history. With `true`,
   * stored items are sent back as references to the server's copy (smaller requests, but they
   * depend on the server's retention).
   */
  store?: boolean;
}

const OptionsSchema = /* @__PURE__ */ (() =>
  z.extend(z.omit(OpenAIProviderConfigSchema, { maxTokensField: true }), {
    id: z.optional(z.string().check(z.minLength(1))),
    store: z.optional(z.boolean()),
    // Structural, so any copy of the SDK (or a subclass such as AzureOpenAI) is accepted.
    client: z.optional(
      z.custom<OpenAIResponsesClient>(
        (value) =>
          typeof (value as { responses?: { create?: unknown } } | null)?.responses?.create === 'function',
        { message: 'expected an openai client' },
      ),
    ),
  }))();

/**
 * Streams OpenAI's Responses API from OpenAI (default) or any server with `/responses` (Azure,
 * xAI, OpenRouter, LM Studio, DeepSeek, vLLM, Amazon Bedrock). Needs the `openai` package (an
 * optional peer dependency): its error classes over `fetch`, or the client you pass.
 *
 * - Sends the system prompt as `instructions`, the history as input items, the tools as
 *   functions, `store` (default `false`) and, without storage, `include:
 *   ['reasoning.encrypted_content']`. An assistant message answered by this provider (same `id`)
 *   for the same model goes back as its stored output items, verbatim and in order; any other
 *   as plain text and calls without ids. A reasoning item never goes without its following item.
 * - Emits text (refusals included) and reasoning deltas, `tool_call_delta`s, each whole
 *   `tool_call` (from the done item), then `usage` (cached and reasoning tokens; the server's cost
 *   when it reports one, else the pricing's), `response_items` and `done`.
 * - A call id the history already has (a server that numbers calls per response) is qualified
 *   as `<call_id>@<response id>`; the server's own id goes back on the wire.
 * - Failures are `PROVIDER_ERROR`s: HTTP statuses as `OpenAIProvider` maps them (but
 *   `insufficient_quota` is never retryable); `error` events and `response.failed` retryable for
 *   rate limits, server errors, overload and timeouts; a stream without a terminal event is a
 *   retryable truncation. API key and header values are redacted from every error.
 * @example
 * const provider = new OpenAIResponsesProvider({
 *   apiKey: process.env.OPENAI_API_KEY,
 *   models: [{ id: 'gpt-5-mini', displayName: 'GPT-5 mini', contextWindow: 400_000,
 *              capabilities: { toolUse: true, vision: true, streaming: true } }],
 * });
 * // A model by id alone, on a local server without a key:
 * const local = new OpenAIResponsesProvider({ baseURL: 'http://127.0.0.1:1234/v1', models: ['qwen3-8b'] });
 */
export class OpenAIResponsesProvider implements ModelProvider {
  /** It only reads its requests: no per-request copy of the history. */
  readonly [READS_REQUEST_ONLY] = true;
  /** @inheritDoc */
  readonly id: string;
  /** @inheritDoc */
  readonly models: readonly ModelInfo[];
  /** Whether the server keeps the responses. */
  readonly store: boolean;
  readonly #client: OpenAIResponsesClient;
  readonly #headers: Record<string, string> | undefined;
  readonly #pricing: ReadonlyMap<string, ModelPricing>;
  readonly #redactor: SecretRedactor;

  /** Throws `INVALID_INPUT` for invalid options (or with neither an API key nor a `baseURL`). */
  constructor(options: OpenAIResponsesProviderOptions) {
    const parsed = parseInput(OptionsSchema, options, 'OpenAIResponsesProvider options');
    assertClientAlone('OpenAIResponsesProvider', parsed);
    this.id = parsed.id ?? 'openai-responses';
    this.store = parsed.store ?? false;
    this.models = Object.freeze(parsed.models.map((entry) => Object.freeze(modelInfoOf(entry))));
    this.#headers = parsed.headers;
    this.#pricing = pricingByModel(this.models);
    this.#client = parsed.client ?? createClient(parsed);
    this.#redactor = redactorFor(this.#client, parsed.headers);
  }

  /** Streams one response; see the class description for the events and errors. */
  async *chat(request: ChatRequest, signal: AbortSignal): AsyncGenerator<ChatEvent, void, undefined> {
    try {
      yield* this.#chat(request, signal);
    } catch (error) {
      const failure = withPermanentCode(sdkFailure(this.id, error, signal, this.#redactor), error);
      throw this.#redactor.error(failure);
    }
  }

  async *#chat(request: ChatRequest, signal: AbortSignal): AsyncGenerator<ChatEvent, void, undefined> {
    const target = { providerId: this.id, model: request.model, store: this.store };
    const body = toResponsesRequest(request, target);
    const options = { signal, maxRetries: 0, ...(this.#headers && { headers: this.#headers }) };
    const stream: ChatChunkStream = await openStream(this.#client.responses.create(body, options), signal);
    const reader = new ResponsesStreamReader({
      providerId: this.id,
      model: request.model,
      takenCallIds: new Set(request.messages.flatMap((m) => (m.type === 'tool_call' ? [m.callId] : []))),
      pricing: this.#pricing.get(request.model),
    });
    const events = stream[Symbol.asyncIterator]();
    let ended = false;
    try {
      for (;;) {
        let next: IteratorResult<unknown>;
        try {
          next = await events.next();
        } catch (error) {
          // After the terminal event the response is whole: a connection that drops then costs nothing.
          if (reader.ended && !signal.aborted && isTransportFailure(error)) break;
          throw error;
        }
        // A stream may end quietly when the request is aborted (the SDK's does); we do not.
        if (signal.aborted) throw Errors.requestCancelled();
        if (next.done) break;
        yield* reader.push(next.value);
      }
      const tail = reader.finish();
      ended = true;
      yield* tail;
    } finally {
      // Stopped early (consumer returned, or an error): close the HTTP request now.
      if (!ended) stream.controller.abort();
    }
  }
}

function createClient(config: z.infer<typeof OptionsSchema>): OpenAIResponsesClient {
  const { apiKey, post } = createFetchStreamPost(
    {
      apiKey: config.apiKey,
      baseURL: config.baseURL,
      dangerouslyAllowBrowser: config.dangerouslyAllowBrowser,
    },
    '/responses',
    'OpenAIResponsesProvider',
  );
  // `apiKey` public like the SDK client's, so the provider knows which key to keep out of its errors.
  return Object.assign({ apiKey }, { responses: { create: post } });
}
