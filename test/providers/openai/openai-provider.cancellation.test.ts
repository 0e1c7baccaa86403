/**
 * Aborting `OpenAIProvider.chat` ends the HTTP request at once (the server sees it closed) and
 * throws `REQUEST_CANCELLED`; a consumer that stops iterating also closes the request.
 */
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { closed, sseEvent, startSse, writeInPieces } from '../../support/chat-completions-server.js';
import { withChatServer } from '../../support/chat-server.js';
import { expectAgentError } from '../../support/errors.js';
import { chatRequest } from '../../support/models.js';

const local = withChatServer();
const chat = (signal: AbortSignal) => local.provider().chat(request, signal)[Symbol.asyncIterator]();

const request = chatRequest('tell me a long story');

/** The server streams one delta and then keeps the response open; resolves with it when asked. */
function holdOpenAfterFirstDelta(): Promise<ServerResponse> {
  return new Promise((resolve) => {
    local.server.respondWith(async (_req, res) => {
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
  return new Promise((resolve) => local.server.respondWith((_req, res) => resolve(res)));
}

describe('OpenAIProvider cancellation', () => {
  it('aborting mid-stream closes the request on the server and throws REQUEST_CANCELLED', async () => {
    const response = holdOpenAfterFirstDelta();
    const controller = new AbortController();
    const stream = chat(controller.signal);
    expect((await stream.next()).value).toEqual({ type: 'text_delta', text: 'Once' });
    const serverSide = closed(await response);

    controller.abort();

    // The server saw the connection close while its response was still unfinished.
    expect(await serverSide).toEqual({ finished: false });
    await expectAgentError(stream.next(), 'REQUEST_CANCELLED');
  });

  it('aborting before the response headers closes the request and throws REQUEST_CANCELLED', async () => {
    const response = neverAnswer();
    const controller = new AbortController();
    // Settle-handled from the start: it rejects while the test is still awaiting the server.
    const outcome = expectAgentError(chat(controller.signal).next(), 'REQUEST_CANCELLED');
    const serverSide = closed(await response);

    controller.abort();

    expect(await serverSide).toEqual({ finished: false });
    await outcome;
  });

  it('an already aborted signal sends no request at all', async () => {
    const before = local.server.requests.length;
    await expectAgentError(chat(AbortSignal.abort()).next(), 'REQUEST_CANCELLED');
    expect(local.server.requests.length).toBe(before);
  });

  it('a consumer that stops iterating closes the request', async () => {
    const response = holdOpenAfterFirstDelta();
    let serverSide: Promise<{ finished: boolean }> | undefined;
    for await (const event of local.provider().chat(request, new AbortController().signal)) {
      expect(event).toEqual({ type: 'text_delta', text: 'Once' });
      serverSide = closed(await response);
      // Leaving the loop calls return() on the stream, which must end the HTTP request.
      break;
    }
    expect(await serverSide).toEqual({ finished: false });
  });
});
