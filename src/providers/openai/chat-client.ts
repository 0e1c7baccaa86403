/**
 * The one call `OpenAIProvider` makes, as a structural type: an `openai` SDK client of any
 * version (or a subclass such as `AzureOpenAI`) has it, and so has the provider's own `fetch`
 * client. Structural on purpose: the SDK's client class has `#private` members, so a class type
 * would reject a client from another copy of the SDK than the one this package was built with.
 * @module
 */
import type { WireRequest } from './to-wire.js';

/** What the provider passes with each request. */
export interface ChatRequestOptions {
  /** Aborts the HTTP request. */
  signal: AbortSignal;
  /** Always 0: the runtime owns retries. */
  maxRetries: number;
  /** Extra headers for this request. */
  headers?: Record<string, string>;
}

/**
 * A streamed response: the parsed chunks, and the controller that closes the HTTP request (the
 * provider aborts it when its consumer stops early).
 */
export interface ChatChunkStream extends AsyncIterable<unknown> {
  readonly controller: AbortController;
}

/**
 * The part of an `openai` client that `OpenAIProvider` calls: a streaming Chat Completions
 * request. Any `OpenAI` instance satisfies it, whatever copy of the SDK (6.x, 7.x) the app has.
 */
export interface OpenAIChatClient {
  chat: {
    completions: {
      create(body: WireRequest, options: ChatRequestOptions): PromiseLike<ChatChunkStream>;
    };
  };
}
