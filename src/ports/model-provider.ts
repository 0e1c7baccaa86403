import type { ChatEvent, ChatRequest, ModelInfo } from '../types.js';

/**
 * A source of model responses (OpenAI, any OpenAI-compatible server, or a fake in tests).
 *
 * Contract:
 * - `chat` streams one response: any number of `text_delta` / `reasoning_delta`, whole
 *   `tool_call`s, at most one `usage`, then exactly one `done` with the finish reason.
 * - Failures throw an `AgentError` with code `PROVIDER_ERROR`, `retryable: true` for rate limits,
 *   overload, 5xx and broken connections; anything else thrown is wrapped as a non-retryable
 *   `PROVIDER_ERROR`. The runtime owns retries: a provider must not retry on its own.
 * - When `signal` aborts, stop at once (end the HTTP request); what is thrown then is ignored.
 */
export interface ModelProvider {
  /** Unique name of the provider, e.g. `openai`. */
  readonly id: string;
  /** The models it serves; ids must be unique across all registered providers. */
  readonly models: readonly ModelInfo[];
  /** Streams one model response. */
  chat(request: ChatRequest, signal: AbortSignal): AsyncIterable<ChatEvent>;
}

/**
 * Set to `true` on a provider whose `chat` never writes to its request or to anything it
 * holds, and never hands them to code that might. The runtime then skips the per-request copy
 * of the history. A registered symbol, so a provider can carry it without importing the runtime.
 */
export const READS_REQUEST_ONLY: unique symbol = Symbol.for('youyou-agent.readsRequestOnly');
