/**
 * What `OpenAIProvider` sends: the request body and headers the local server receives from the
 * real `openai` SDK.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { OpenAIProviderOptions } from '../../../src/openai.js';
import type { ChatRequest } from '../../../src/types.js';
import { collect, sseEvent, streamText } from '../../support/chat-completions-server.js';
import { withChatServer } from '../../support/chat-server.js';
import { chatModel } from '../../support/models.js';

const model = chatModel('gpt-test', { capabilities: { toolUse: true, vision: true, streaming: true } });

const local = withChatServer();
beforeAll(() => {
  local.server.respondWith(
    streamText(sseEvent({ choices: [{ index: 0, delta: { content: 'ok' }, finish_reason: 'stop' }] })),
  );
});

async function send(request: ChatRequest, options: Partial<OpenAIProviderOptions> = {}) {
  const provider = local.provider({ models: [model], ...options });
  const { error } = await collect(provider.chat(request, new AbortController().signal));
  expect(error).toBeUndefined();
  const recorded = local.server.requests.at(-1);
  if (!recorded) throw new Error('the server received no request');
  return recorded;
}

const history: ChatRequest = {
  model: 'gpt-test',
  systemPrompt: 'You are helpful.',
  messages: [
    {
      type: 'user',
      content: [
        { type: 'text', text: 'What is in this picture?' },
        { type: 'image', data: 'iVBORw0KGgo=', mediaType: 'image/png' },
      ],
    },
    { type: 'assistant', content: [{ type: 'text', text: 'Let me look.' }], status: 'complete' },
    { type: 'tool_call', callId: 'call_1', toolName: 'zoom', arguments: { factor: 2 } },
    { type: 'tool_call', callId: 'call_2', toolName: 'crop', arguments: '{"x": 1,' },
    { type: 'tool_result', callId: 'call_1', content: 'zoomed', isError: false },
    { type: 'tool_result', callId: 'call_2', content: 'invalid JSON arguments', isError: true },
    { type: 'system', content: 'Be brief.' },
  ],
  tools: [
    {
      name: 'zoom',
      description: 'Zooms in.',
      parameters: { type: 'object', properties: { factor: { type: 'number' } }, required: ['factor'] },
    },
  ],
  maxOutputTokens: 256,
  purpose: 'turn',
};

describe('OpenAIProvider request', () => {
  it('posts a streaming Chat Completions request with usage, tools as functions and the mapped history', async () => {
    const recorded = await send(history);
    expect(recorded.method).toBe('POST');
    expect(recorded.url).toBe('/v1/chat/completions');
    expect(recorded.headers['authorization']).toBe('Bearer sk-test-key');
    expect(recorded.body).toEqual({
      model: 'gpt-test',
      stream: true,
      stream_options: { include_usage: true },
      max_completion_tokens: 256,
      messages: [
        { role: 'system', content: 'You are helpful.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is in this picture?' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
          ],
        },
        {
          role: 'assistant',
          content: 'Let me look.',
          tool_calls: [
            { id: 'call_1', type: 'function', function: { name: 'zoom', arguments: '{"factor":2}' } },
            { id: 'call_2', type: 'function', function: { name: 'crop', arguments: '{"x": 1,' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_1', content: 'zoomed' },
        { role: 'tool', tool_call_id: 'call_2', content: 'invalid JSON arguments' },
        { role: 'system', content: 'Be brief.' },
      ],
      tools: [
        {
          type: 'function',
          function: {
            name: 'zoom',
            description: 'Zooms in.',
            parameters: { type: 'object', properties: { factor: { type: 'number' } }, required: ['factor'] },
          },
        },
      ],
    });
  });

  it('sends max_tokens instead when asked, and no tools key without tools', async () => {
    const recorded = await send({ ...history, tools: [] }, { maxTokensField: 'max_tokens' });
    expect(recorded.body['max_tokens']).toBe(256);
    expect('max_completion_tokens' in recorded.body).toBe(false);
    expect('tools' in recorded.body).toBe(false);
  });

  it('sends no token limit when the request has none', async () => {
    const { maxOutputTokens: _, ...unlimited } = history;
    const recorded = await send(unlimited);
    expect('max_tokens' in recorded.body || 'max_completion_tokens' in recorded.body).toBe(false);
  });

  it('adds the configured headers to every request', async () => {
    const recorded = await send(history, {
      headers: { 'HTTP-Referer': 'https://example.test', 'X-Title': 'demo' },
    });
    expect(recorded.headers['http-referer']).toBe('https://example.test');
    expect(recorded.headers['x-title']).toBe('demo');
  });
});
