/**
 * The one place the real-HTTP property imports the OpenAI provider and the local server from,
 * so moving either (the provider to its own package entry, the server to shared test support)
 * changes one line here.
 * @module
 */
export { OpenAIProvider } from '../../../src/providers/openai/openai-provider.js';
export {
  ChatCompletionsServer,
  sseEvent,
  startSse,
} from '../../providers/support/chat-completions-server.js';
