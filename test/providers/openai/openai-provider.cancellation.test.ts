/**
 * Aborting `OpenAIProvider.chat` ends the HTTP request at once (the server sees it closed) and
 * throws `REQUEST_CANCELLED`; a consumer that stops iterating also closes the request.
 */
import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentError } from '../../../src/errors.js';
import { OpenAIProvider } from '../../../src/providers/openai/openai-provider.js';
import type { ChatRequest } from '../../../src/types.js';
import {
  ChatCompletionsServer,
  closed,
  sseEvent,
  startSse,
  writeInPieces,
} from '../../support/chat-completions-server.js';

let server: ChatCompletionsServer;
let provider: OpenAIProvider;

beforeAll(async () => {
  server = await ChatCompletionsServer.start();
  provider = new OpenAIProvider({
    baseURL: server.baseURL,
    apiKey: 'test-key',
    models: [
      {
        id: 'm',
        displayName: 'M',
        contextWindow: 8192,
        capabilities: { toolUse: true, vision: false, streaming: true },
      },
    ],
  });
});
afterAll(() => server.close());

const request: ChatRequest = {
  model: 'm',
  systemPrompt: '',
  messages: [{ type: 'user', content: [{ type: 'text', text: 'tell me a long story' }] }],
  tools: [],
  purpose: 'turn',
};

/** The server streams one delta and then keeps the response open; resolves with it when asked. */
function holdOpenAfterFirstDelta(): Promise<ServerResponse> {
  return new Promise((resolve) => {
    server.respondWith(async (_req, res) => {
      startSse(res);
      await writeInPieces(
        res,
        sseEvent({ choices: [{ index: 0, delta: { content: 'Once' }, finish_reason: null }] }),
      );
      resolve(res);
    });
  });
}

/** The server never answers; resolves with the response object as soon as the request is in. */
function neverAnswer(): Promise<ServerResponse> {
  return new Promise((resolve) => server.respondWith((_req, res) => resolve(res)));
}

async function expectCancelled(promise: Promise<unknown>): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(AgentError.isInstance(error)).toBe(true);
  expect((error as AgentError).code).toBe('REQUEST_CANCELLED');
}

describe('OpenAIProvider cancellation', () => {
  it('aborting mid-stream closes the request on the server and throws REQUEST_CANCELLED', async () => {
    const response = holdOpenAfterFirstDelta();
    const controller = new AbortController();
    const stream = provider.chat(request, controller.signal)[Symbol.asyncIterator]();
    expect((await stream.next()).value).toEqual({ type: 'text_delta', text: 'Once' });
    const serverSide = closed(await response);

    controller.abort();

    // The server saw the connection close while its response was still unfinished.
    expect(await serverSide).toEqual({ finished: false });
    await expectCancelled(stream.next());
  });

  it('aborting before the response headers closes the request and throws REQUEST_CANCELLED', async () => {
    const response = neverAnswer();
    const controller = new AbortController();
    // Settle-handled from the start: it rejects while the test is still awaiting the server.
    const outcome = expectCancelled(provider.chat(request, controller.signal)[Symbol.asyncIterator]().next());
    const serverSide = closed(await response);

    controller.abort();

    expect(await serverSide).toEqual({ finished: false });
    await outcome;
  });

  it('an already aborted signal sends no request at all', async () => {
    const before = server.requests.length;
    await expectCancelled(provider.chat(request, AbortSignal.abort())[Symbol.asyncIterator]().next());
    expect(server.requests.length).toBe(before);
  });

  it('a consumer that stops iterating closes the request', async () => {
    const response = holdOpenAfterFirstDelta();
    let serverSide: Promise<{ finished: boolean }> | undefined;
    for await (const event of provider.chat(request, new AbortController().signal)) {
      expect(event).toEqual({ type: 'text_delta', text: 'Once' });
      serverSide = closed(await response);
      // Leaving the loop calls return() on the stream, which must end the HTTP request.
      break;
    }
    expect(await serverSide).toEqual({ finished: false });
  });
});
