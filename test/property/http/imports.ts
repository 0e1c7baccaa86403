/**
 * The one place the real-HTTP property imports the OpenAI provider and the local server from,
 * so moving either changes one line here.
 * @module
 */
export { OpenAIProvider } from '../../../src/openai.js';
export { ChatCompletionsServer, sseEvent, startSse } from '../../support/chat-completions-server.js';
