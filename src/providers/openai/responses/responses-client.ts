/**
 * The one call `OpenAIResponsesProvider` makes, as a structural type: an `openai` SDK client of
 * any version (or a subclass such as `AzureOpenAI`) has it, and so has the provider's own
 * `fetch` client. Structural for the same reason as `OpenAIChatClient`: the SDK's client class
 * has `#private` members.
 * @module
 */
import type { ChatChunkStream, ChatRequestOptions } from '../chat-client.js';

/**
 * The body as the client sees it. Loose on purpose: the provider sends a `ResponsesWireRequest`,
 * whose verbatim stored items no SDK type describes, and an SDK client's own (stricter) body
 * type must still fit this method.
 */
export interface ResponsesCreateBody {
  model?: unknown;
  input?: unknown;
  stream?: unknown;
}

/**
 * The part of an `openai` client that `OpenAIResponsesProvider` calls: a streaming
 * `POST /responses`. Any `OpenAI` instance satisfies it, whatever copy of the SDK the app has.
 */
export interface OpenAIResponsesClient {
  responses: {
    create(body: ResponsesCreateBody, options: ChatRequestOptions): PromiseLike<ChatChunkStream>;
  };
}
