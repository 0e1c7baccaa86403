/**
 * `[DONE]` is the end of a response: one without a finish reason (Snowflake Cortex) is complete,
 * what follows the marker is not read, and a body that just stops with neither stays broken.
 * Over real HTTP, through the provider's own `fetch` client and through an `openai` SDK client.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentError } from '../../../src/errors.js';
import { OpenAIProvider, type OpenAIChatClient } from '../../../src/openai.js';
import type { ChatRequest } from '../../../src/types.js';
import {
  ChatCompletionsServer,
  collect,
  readOwnStream,
  sseEvent,
  startSse,
  streamText,
  writeInPieces,
} from './local-server.js';
import { chatModel, chatRequest } from '../../support/models.js';

const model = chatModel('m');

const request: ChatRequest = chatRequest('hi');

let server: ChatCompletionsServer;
let sdkClient: OpenAI;
const providers: Record<string, () => OpenAIProvider> = {};

beforeAll(async () => {
  server = await ChatCompletionsServer.start();
  sdkClient = new OpenAI({ apiKey: 'test-key', baseURL: server.baseURL, logLevel: 'off' });
  const viaFetch = new OpenAIProvider({ baseURL: server.baseURL, apiKey: 'test-key', models: [model] });
  const viaClient = new OpenAIProvider({ client: sdkClient, models: [model] });
  providers['the fetch client'] = () => viaFetch;
  providers['an SDK client'] = () => viaClient;
});
afterAll(() => server.close());

const delta = (content: string) => sseEvent({ choices: [{ index: 0, delta: { content } }] });
const usage = sseEvent({ choices: [], usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 } });

function chat(provider: OpenAIProvider) {
  return collect(provider.chat(request, new AbortController().signal));
}

for (const path of ['the fetch client', 'an SDK client']) {
  describe(`through ${path}`, () => {
    const provider = () => providers[path]!();

    it('13 (constructed, Snowflake Cortex): [DONE] without a finish reason is a normal end, reported as stop', async () => {
      server.respondWith(
        streamText(readOwnStream('13-constructed-snowflake-done-without-finish-reason.sse')),
      );
      const { events, error } = await chat(provider());
      expect(error).toBeUndefined();
      expect(events).toEqual([
        { type: 'text_delta', text: 'The capital' },
        { type: 'text_delta', text: ' of France' },
        { type: 'text_delta', text: ' is Paris.' },
        {
          type: 'usage',
          usage: {
            inputTokens: 18,
            outputTokens: 9,
            totalTokens: 27,
            cachedInputTokens: 0,
            reasoningTokens: 0,
          },
        },
        expect.objectContaining({ type: 'done', finishReason: 'stop' }),
      ]);
    });

    it('14 (constructed): with tool calls and no finish reason, [DONE] reports tool_calls', async () => {
      server.respondWith(
        streamText(readOwnStream('14-constructed-snowflake-tool-call-done-without-finish-reason.sse')),
      );
      const { events, error } = await chat(provider());
      expect(error).toBeUndefined();
      // The arguments' deltas are covered by the stream assembler's tests.
      expect(events.filter((e) => e.type !== 'tool_call_delta')).toEqual([
        { type: 'text_delta', text: 'Let me check the weather.' },
        {
          type: 'tool_call',
          callId: 'toolu_01A2b3C4d5E6f7G8h9I0j1K2',
          toolName: 'get_weather',
          arguments: '{"city": "Oslo"}',
        },
        {
          type: 'usage',
          usage: {
            inputTokens: 412,
            outputTokens: 61,
            totalTokens: 473,
            cachedInputTokens: 0,
            reasoningTokens: 0,
          },
        },
        expect.objectContaining({ type: 'done', finishReason: 'tool_calls' }),
      ]);
    });

    it('a body that stops with neither a finish reason nor [DONE] is still a retryable error', async () => {
      server.respondWith(streamText(delta('Hel') + delta('lo') + usage));
      const { events, error } = await chat(provider());
      expect(events).toEqual([
        { type: 'text_delta', text: 'Hel' },
        { type: 'text_delta', text: 'lo' },
      ]);
      expect(AgentError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ code: 'PROVIDER_ERROR', retryable: true });
      expect((error as AgentError).message).toContain('before a finish reason');
    });

    it('reads nothing after [DONE] and does not wait for the body to end', async () => {
      let closedByClient: Promise<void> = Promise.resolve();
      server.respondWith(async (_req, res) => {
        closedByClient = new Promise((resolve) => res.on('close', () => resolve()));
        startSse(res);
        // The server keeps the response open after [DONE], and sends more: none of it counts.
        await writeInPieces(
          res,
          delta('Done.') + 'data: [DONE]\n\n' + delta(' ignored') + 'data: {oops}\n\n',
        );
      });
      const { events, error } = await chat(provider());
      expect(error).toBeUndefined();
      expect(events).toEqual([
        { type: 'text_delta', text: 'Done.' },
        expect.objectContaining({ type: 'done', finishReason: 'stop' }),
      ]);
      // The provider closed the request itself.
      await closedByClient;
    });

    it('lets the body end by itself after [DONE], so the next request reuses the connection', async () => {
      const sockets = new Set<unknown>();
      server.respondWith(async (req, res) => {
        sockets.add(req.socket);
        startSse(res);
        res.write(delta('Hi') + 'data: [DONE]\n\n');
        // The body's end (a chunked body's terminator) comes a moment after the marker.
        await new Promise((resolve) => setTimeout(resolve, 20));
        res.end();
      });
      for (let i = 0; i < 3; i++) {
        const { events, error } = await chat(provider());
        expect(error).toBeUndefined();
        expect(events.at(-1)).toEqual(expect.objectContaining({ type: 'done', finishReason: 'stop' }));
        // Past the body's end: the connection is free again (a cancelled one would be closed).
        await new Promise((resolve) => setTimeout(resolve, 60));
      }
      expect(sockets.size).toBe(1);
    });

    it('does not wait for a body that stays open after [DONE], and closes it itself', async () => {
      let closedByClient: Promise<void> = Promise.resolve();
      let closed = false;
      server.respondWith((_req, res) => {
        closedByClient = new Promise((resolve) => res.on('close', () => resolve()));
        res.on('close', () => (closed = true));
        startSse(res);
        res.write(delta('Hi') + 'data: [DONE]\n\n');
      });
      const { events, error } = await chat(provider());
      expect(error).toBeUndefined();
      expect(events.at(-1)).toEqual(expect.objectContaining({ type: 'done', finishReason: 'stop' }));
      // The response ended before its body did; the provider then closes the body (the server
      // never ends it).
      expect(closed).toBe(false);
      await closedByClient;
    });

    it('reads a stream with CRLF line ends', async () => {
      const sse = (
        delta('Hi') + sseEvent({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })
      ).replace(/\n/g, '\r\n');
      server.respondWith(streamText(sse));
      const { events, error } = await chat(provider());
      expect(error).toBeUndefined();
      expect(events).toEqual([
        { type: 'text_delta', text: 'Hi' },
        expect.objectContaining({ type: 'done', finishReason: 'stop' }),
      ]);
    });
  });
}

describe('a client whose create() hides the raw response', () => {
  it('cannot see [DONE]: a stream without a finish reason fails as broken', async () => {
    // A wrapper that hands over only the SDK's chunk stream (a plain Promise, no asResponse()).
    const wrapper: OpenAIChatClient = {
      chat: {
        completions: {
          create: (body, options) => Promise.resolve(sdkClient.chat.completions.create(body, options)),
        },
      },
    };
    const provider = new OpenAIProvider({ client: wrapper, models: [model] });
    server.respondWith(streamText(readOwnStream('13-constructed-snowflake-done-without-finish-reason.sse')));
    const { events, error } = await chat(provider);
    expect(events.map((e) => e.type)).toEqual(['text_delta', 'text_delta', 'text_delta']);
    expect(error).toMatchObject({ code: 'PROVIDER_ERROR', retryable: true });
  });

  it('reads a stream that has a finish reason as usual', async () => {
    const wrapper: OpenAIChatClient = {
      chat: {
        completions: {
          create: (body, options) => Promise.resolve(sdkClient.chat.completions.create(body, options)),
        },
      },
    };
    const provider = new OpenAIProvider({ client: wrapper, models: [model] });
    server.respondWith(streamText(readOwnStream('02-openai-text-include-usage.sse')));
    const { events, error } = await chat(provider);
    expect(error).toBeUndefined();
    expect(events.at(-1)).toEqual(expect.objectContaining({ type: 'done', finishReason: 'stop' }));
  });
});
