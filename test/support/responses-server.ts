/**
 * The set-up of the tests of `OpenAIResponsesProvider` over real HTTP: the local server of
 * {@link ChatCompletionsServer} (it answers any path; these tests use `/v1/responses`), providers
 * pointed at it (the provider's own `fetch` client, or a real `openai` SDK client), the recorded
 * Responses streams of test/fixtures/responses-streams, and an independent reading of them.
 * @module
 */
import { readFileSync } from 'node:fs';
import OpenAI from 'openai';
import { afterAll, beforeAll } from 'vitest';
import {
  OpenAIResponsesProvider,
  type OpenAIResponsesProviderOptions,
} from '../../src/providers/openai/responses/openai-responses-provider.js';
import { ChatCompletionsServer, startSse, writeInPieces, type Responder } from './chat-completions-server.js';
import { chatModel } from './models.js';

/** A recorded stream from test/fixtures/responses-streams (see SOURCES.md there). */
export function readResponsesStream(name: string): string {
  return readFileSync(new URL(`../fixtures/responses-streams/${name}`, import.meta.url), 'utf8');
}

/** The server of the enclosing file or `describe`, and providers for it. */
export interface ResponsesServerFixture {
  readonly server: ChatCompletionsServer;
  /** A provider on the server with its own `fetch` client: key `sk-test-key`, model `m`. */
  provider(options?: Partial<OpenAIResponsesProviderOptions>): OpenAIResponsesProvider;
  /** The same, through a real `openai` SDK client. */
  sdkProvider(options?: Partial<OpenAIResponsesProviderOptions>): OpenAIResponsesProvider;
}

/**
 * Starts a server before the tests of the enclosing file or `describe`, closes it after them.
 * @example
 * const local = withResponsesServer();
 * local.server.respondWith(streamBodies([readResponsesStream('vercel-azure-text.sse')]));
 */
export function withResponsesServer(): ResponsesServerFixture {
  let running: ChatCompletionsServer | undefined;
  beforeAll(async () => {
    running = await ChatCompletionsServer.start();
  });
  afterAll(() => running?.close());
  const fixture: ResponsesServerFixture = {
    get server() {
      if (!running) throw new Error('the server starts in beforeAll: use it inside a test or hook');
      return running;
    },
    provider: (options = {}) =>
      new OpenAIResponsesProvider({
        baseURL: fixture.server.baseURL,
        apiKey: 'sk-test-key',
        models: [chatModel('m')],
        ...options,
      }),
    sdkProvider: (options = {}) =>
      new OpenAIResponsesProvider({
        client: new OpenAI({ baseURL: fixture.server.baseURL, apiKey: 'sk-test-key', maxRetries: 0 }),
        models: [chatModel('m')],
        ...options,
      }),
  };
  return fixture;
}

/** A responder that answers request n with `bodies[n]` (in pieces), and fails past the end. */
export function streamBodies(bodies: readonly string[]): Responder {
  let next = 0;
  return async (_req, res) => {
    const body = bodies[next++];
    if (body === undefined) {
      res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":{"message":"no more"}}');
      return;
    }
    startSse(res);
    await writeInPieces(res, body);
    res.end();
  };
}

/** The JSON data of each event of a recorded stream (`[DONE]` left out), read without the provider. */
export function sseData(sse: string): Record<string, unknown>[] {
  return sse
    .split(/\r?\n\r?\n/)
    .map((block) =>
      block
        .split(/\r?\n/)
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(line.startsWith('data: ') ? 6 : 5))
        .join('\n'),
    )
    .filter((data) => data !== '' && data !== '[DONE]')
    .map((data) => JSON.parse(data) as Record<string, unknown>);
}

/** The `output_item.done` items of a recorded stream, in `output_index` order. */
export function doneItems(sse: string): Record<string, unknown>[] {
  return sseData(sse)
    .filter((event) => event['type'] === 'response.output_item.done')
    .map((event) => ({
      index: event['output_index'] as number,
      item: event['item'] as Record<string, unknown>,
    }))
    .sort((a, b) => a.index - b.index)
    .map(({ item }) => item);
}
