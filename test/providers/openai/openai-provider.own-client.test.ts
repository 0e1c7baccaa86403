/**
 * With its own `client` (a whole `openai` SDK instance) the provider behaves exactly as with the
 * client it creates over `fetch`: the same events and the same errors for every recorded stream,
 * every HTTP failure and a cancellation, over real HTTP from a local server.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentError } from '../../../src/errors.js';
import { OpenAIProvider } from '../../../src/openai.js';
import type { ChatRequest } from '../../../src/types.js';
import {
  ChatCompletionsServer,
  closed,
  collect,
  readFixture,
  sseEvent,
  startSse,
  streamText,
  writeInPieces,
  type Responder,
} from '../../support/chat-completions-server.js';

const model = {
  id: 'm',
  displayName: 'M',
  contextWindow: 8192,
  capabilities: { toolUse: true, vision: false, streaming: true },
  pricing: { inputPerMillion: 1, outputPerMillion: 2 },
};

let server: ChatCompletionsServer;
let viaFetch: OpenAIProvider;
let viaClient: OpenAIProvider;

beforeAll(async () => {
  server = await ChatCompletionsServer.start();
  viaFetch = new OpenAIProvider({ id: 'local', baseURL: server.baseURL, apiKey: 'k', models: [model] });
  // The SDK's defaults (2 retries) on purpose: the provider must turn them off per request.
  const client = new OpenAI({ apiKey: 'k', baseURL: server.baseURL, logLevel: 'off' });
  viaClient = new OpenAIProvider({ id: 'local', client, models: [model] });
});
afterAll(() => server.close());

const request: ChatRequest = {
  model: 'm',
  systemPrompt: 'Be terse.',
  messages: [{ type: 'user', content: [{ type: 'text', text: 'hi' }] }],
  tools: [],
  purpose: 'turn',
};

/** Events, and the error as data, from one provider answering with `responder`. */
async function outcome(provider: OpenAIProvider, responder: Responder) {
  server.respondWith(responder);
  const before = server.requests.length;
  const { events, error } = await collect(provider.chat(request, new AbortController().signal));
  const sent = server.requests.length - before;
  if (error === undefined) return { events, sent };
  expect(AgentError.isInstance(error)).toBe(true);
  const { code, retryable, retryAfterMs, message } = error as AgentError;
  return { events, sent, error: { code, retryable, retryAfterMs, message } };
}

async function expectSameOutcome(responder: Responder) {
  const own = await outcome(viaClient, responder);
  expect(own).toEqual(await outcome(viaFetch, responder));
  return own;
}

function errorReply(status: number, body: string, headers: Record<string, string> = {}): Responder {
  return (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(body);
  };
}

describe('OpenAIProvider with its own client', () => {
  const fixtures = [
    '01-openai-plain-text.sse',
    '02-openai-text-include-usage.sse',
    '03-openai-tool-call-split-arguments.sse',
    '04-openai-parallel-tool-calls.sse',
    '05-openai-finish-reason-length.sse',
    '06-openai-refusal.sse',
    '07-deepseek-reasoner-reasoning-content.sse',
    '08-deepseek-reasoner-tool-call.sse',
    '09-openrouter-reasoning-sse-comments.sse',
    '10-openrouter-error-in-chunk-length.sse',
    '11-groq-error-event-midstream.sse',
    '12-azure-prompt-filter-results.sse',
  ];
  for (const file of fixtures) {
    it(`replays ${file} as the fetch client does`, async () => {
      const own = await expectSameOutcome(streamText(readFixture(file)));
      expect(own.events.length).toBeGreaterThan(0);
    });
  }

  it('maps HTTP failures as the fetch client does, with one request each', async () => {
    const replies = [
      errorReply(429, JSON.stringify({ error: { message: 'Rate limit reached' } }), { 'retry-after': '7' }),
      errorReply(429, JSON.stringify({ error: { message: 'slow' } }), { 'retry-after-ms': '1234' }),
      errorReply(500, JSON.stringify({ error: { message: 'The server had an error' } })),
      errorReply(503, 'upstream overloaded', { 'content-type': 'text/plain' }),
      errorReply(503, JSON.stringify({ error: { message: 'no' } }), { 'x-should-retry': 'false' }),
      errorReply(401, JSON.stringify({ error: { message: 'Incorrect API key provided' } })),
    ];
    const retryAfter: (number | undefined)[] = [];
    for (const reply of replies) {
      const own = await expectSameOutcome(reply);
      expect(own.sent).toBe(1);
      expect(own.error?.code).toBe('PROVIDER_ERROR');
      retryAfter.push(own.error?.retryAfterMs);
    }
    expect(retryAfter).toEqual([7000, 1234, undefined, undefined, undefined, undefined]);
  });

  it('fails a malformed chunk as the fetch client does', async () => {
    const own = await expectSameOutcome(
      streamText(sseEvent({ choices: [{ index: 0, delta: { content: 'Hi' } }] }) + 'data: {oops}\n\n'),
    );
    expect(own.error).toMatchObject({ code: 'PROVIDER_ERROR', retryable: false });
  });

  it('closes the request on the server when the signal aborts mid-stream, and throws REQUEST_CANCELLED', async () => {
    const held = new Promise<Parameters<Responder>[1]>((resolve) =>
      server.respondWith(async (_req, res) => {
        startSse(res);
        await writeInPieces(res, sseEvent({ choices: [{ index: 0, delta: { content: 'Once' } }] }));
        resolve(res);
      }),
    );
    const controller = new AbortController();
    const stream = viaClient.chat(request, controller.signal)[Symbol.asyncIterator]();
    expect((await stream.next()).value).toEqual({ type: 'text_delta', text: 'Once' });
    const serverSide = closed(await held);
    controller.abort();
    expect(await serverSide).toEqual({ finished: false });
    const error = await stream.next().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((error as AgentError).code).toBe('REQUEST_CANCELLED');
  });
});
