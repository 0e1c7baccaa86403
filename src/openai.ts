/**
 * `youyou-agent/openai`: `OpenAIProvider`, for OpenAI and any OpenAI-compatible server, and
 * `OpenAIResponsesProvider`, for OpenAI's Responses API. A separate
 * entry because it needs the `openai` package (an optional peer dependency): apps on their own
 * providers neither install nor bundle it.
 * @module
 */
export { OpenAIProvider, type OpenAIProviderOptions } from './providers/openai/openai-provider.js';
export type {
  ChatChunkStream,
  ChatRequestOptions,
  OpenAIChatClient,
} from './providers/openai/chat-client.js';
export type { OpenAIProviderConfig } from './providers/openai/config.js';
export {
  OpenAIResponsesProvider,
  type OpenAIResponsesProviderOptions,
} from './providers/openai/responses/openai-responses-provider.js';
export type { OpenAIResponsesClient } from './providers/openai/responses/responses-client.js';
