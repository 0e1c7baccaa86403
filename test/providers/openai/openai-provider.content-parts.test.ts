/**
 * Mistral's array-form `delta.content` over real HTTP: the constructed stream 15 (see
 * test/fixtures/chat-completions-sse/SOURCES.md), through the provider's own `fetch` client and an
 * `openai` SDK client. Before, both the answer and the reasoning were dropped without an error.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OpenAIProvider } from '../../../src/openai.js';
import type { ChatRequest } from '../../../src/types.js';
import { ChatCompletionsServer, collect, readOwnStream, streamText } from './local-server.js';

const model = {
  id: 'magistral-small-2509',
  displayName: 'Magistral Small',
  contextWindow: 40_000,
  capabilities: { toolUse: true, vision: false, streaming: true },
};
const request: ChatRequest = {
  model: model.id,
  systemPrompt: '',
  messages: [{ type: 'user', content: [{ type: 'text', text: 'When does water boil?' }] }],
  tools: [],
  purpose: 'turn',
};

let server: ChatCompletionsServer;
const providers: [string, () => OpenAIProvider][] = [];

beforeAll(async () => {
  server = await ChatCompletionsServer.start();
  const viaFetch = new OpenAIProvider({ baseURL: server.baseURL, apiKey: 'test-key', models: [model] });
  const client = new OpenAI({ apiKey: 'test-key', baseURL: server.baseURL, logLevel: 'off' });
  const viaClient = new OpenAIProvider({ client, models: [model] });
  providers.push(['the fetch client', () => viaFetch], ['an SDK client', () => viaClient]);
});
afterAll(() => server.close());

describe('array-form content over HTTP', () => {
  it.each(['the fetch client', 'an SDK client'])(
    'through %s: thinking parts are reasoning, text parts and string content are text',
    async (path) => {
      const provider = providers.find(([name]) => name === path)![1]();
      server.respondWith(streamText(readOwnStream('15-constructed-mistral-magistral-content-parts.sse')));
      const { events, error } = await collect(provider.chat(request, new AbortController().signal));
      expect(error).toBeUndefined();
      expect(events).toEqual([
        { type: 'reasoning_delta', text: 'The user wants the boiling point of water' },
        { type: 'reasoning_delta', text: ' at sea level: 100 °C.' },
        { type: 'reasoning_delta', text: ' Answer briefly.' },
        { type: 'text_delta', text: 'Water boils at ' },
        { type: 'text_delta', text: '100 °C' },
        { type: 'text_delta', text: ' at sea level.' },
        { type: 'usage', usage: { inputTokens: 14, outputTokens: 47, totalTokens: 61 } },
        expect.objectContaining({ type: 'done', finishReason: 'stop' }),
      ]);
    },
  );
});
