/**
 * {@link withChatServer}: the set-up every test of `OpenAIProvider` over real HTTP shares — a
 * local {@link ChatCompletionsServer} for the file (or `describe`), and providers pointed at it.
 * @module
 */
import { afterAll, beforeAll } from 'vitest';
import { OpenAIProvider, type OpenAIProviderOptions } from '../../src/providers/openai/openai-provider.js';
import { ChatCompletionsServer } from './chat-completions-server.js';
import { chatModel } from './models.js';

/** The server of the enclosing file or `describe`, and a way to make providers for it. */
export interface ChatServerFixture {
  /** The running server; read it inside tests and hooks (it starts in `beforeAll`). */
  readonly server: ChatCompletionsServer;
  /**
   * An `OpenAIProvider` on the server: API key `sk-test-key`, one model {@link chatModel}`('m')`,
   * unless `options` say otherwise.
   */
  provider(options?: Partial<OpenAIProviderOptions>): OpenAIProvider;
}

/**
 * Starts a {@link ChatCompletionsServer} before the tests of the enclosing file or `describe`
 * and closes it after them.
 * @example
 * const chat = withChatServer();
 * it('streams', async () => {
 *   chat.server.respondWith(streamText(readFixture('01-openai-plain-text.sse')));
 *   const { events } = await collect(chat.provider().chat(request, new AbortController().signal));
 * });
 */
export function withChatServer(): ChatServerFixture {
  let running: ChatCompletionsServer | undefined;
  beforeAll(async () => {
    running = await ChatCompletionsServer.start();
  });
  afterAll(() => running?.close());
  const fixture: ChatServerFixture = {
    get server() {
      if (!running) throw new Error('the chat server starts in beforeAll: use it inside a test or hook');
      return running;
    },
    provider: (options = {}) =>
      new OpenAIProvider({
        baseURL: fixture.server.baseURL,
        apiKey: 'sk-test-key',
        models: [chatModel('m')],
        ...options,
      }),
  };
  return fixture;
}
