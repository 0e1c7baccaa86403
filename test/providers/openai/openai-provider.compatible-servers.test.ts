/**
 * Stream shapes of OpenAI-compatible servers that no recording covers (see the Gaps section of
 * test/fixtures/chat-completions-sse/SOURCES.md), synthesised and served over real HTTP.
 */
import { describe, expect, it } from 'vitest';
import { collect, sseEvent, streamText } from '../../support/chat-completions-server.js';
import { withChatServer } from '../../support/chat-server.js';
import { chatModel, chatRequest } from '../../support/models.js';

const local = withChatServer();
const pricing = { inputPerMillion: 3, outputPerMillion: 15 };
const ollama = () =>
  local.provider({ apiKey: 'ollama', models: [chatModel('qwen3:8b', { contextWindow: 40_960, pricing })] });

const request = chatRequest('weather in Paris and Rome?', { model: 'qwen3:8b' });

const chunk = (delta: object, finish: string | null = null) =>
  sseEvent({
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    model: 'qwen3:8b',
    choices: [{ index: 0, delta, finish_reason: finish }],
  });

const wholeCall = (index: number, id: string, city: string) => ({
  index,
  id,
  type: 'function',
  function: { name: 'get_weather', arguments: `{"city":"${city}"}` },
});

const ollamaUsage = sseEvent({
  id: 'chatcmpl-1',
  choices: [],
  usage: { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 },
});

describe('OpenAIProvider with compatible servers', () => {
  it('takes tool calls that arrive whole, one chunk each (Ollama), with reasoning and a usage chunk', async () => {
    local.server.respondWith(
      streamText(
        chunk({ role: 'assistant', content: '', reasoning: 'Two cities, two calls.' }) +
          chunk({ tool_calls: [wholeCall(0, 'call_a', 'Paris')] }) +
          chunk({ tool_calls: [wholeCall(1, 'call_b', 'Rome')] }) +
          chunk({}, 'tool_calls') +
          ollamaUsage +
          'data: [DONE]\n\n',
      ),
    );
    const { events, error } = await collect(ollama().chat(request, new AbortController().signal));
    expect(error).toBeUndefined();
    expect(events).toEqual([
      { type: 'reasoning_delta', text: 'Two cities, two calls.' },
      // Each call streams as one delta (it came whole), then the whole calls follow.
      {
        type: 'tool_call_delta',
        index: 0,
        callId: 'call_a',
        toolName: 'get_weather',
        argumentsDelta: '{"city":"Paris"}',
      },
      {
        type: 'tool_call_delta',
        index: 1,
        callId: 'call_b',
        toolName: 'get_weather',
        argumentsDelta: '{"city":"Rome"}',
      },
      { type: 'tool_call', callId: 'call_a', toolName: 'get_weather', arguments: '{"city":"Paris"}' },
      { type: 'tool_call', callId: 'call_b', toolName: 'get_weather', arguments: '{"city":"Rome"}' },
      {
        type: 'usage',
        usage: { inputTokens: 100, outputTokens: 20, totalTokens: 120 },
        // From ModelInfo.pricing: 100 × $3 + 20 × $15 per million.
        cost: (100 * 3 + 20 * 15) / 1e6,
      },
      expect.objectContaining({ type: 'done', finishReason: 'tool_calls' }),
    ]);
  });

  it('keeps parallel calls apart when the server gives every one index 0', async () => {
    local.server.respondWith(
      streamText(
        chunk({ tool_calls: [wholeCall(0, 'call_a', 'Paris')] }) +
          chunk({ tool_calls: [wholeCall(0, 'call_b', 'Rome')] }) +
          chunk({}, 'tool_calls') +
          'data: [DONE]\n\n',
      ),
    );
    const { events } = await collect(ollama().chat(request, new AbortController().signal));
    expect(events.filter((e) => e.type === 'tool_call')).toEqual([
      { type: 'tool_call', callId: 'call_a', toolName: 'get_weather', arguments: '{"city":"Paris"}' },
      { type: 'tool_call', callId: 'call_b', toolName: 'get_weather', arguments: '{"city":"Rome"}' },
    ]);
  });

  it('takes several whole calls in a single delta', async () => {
    local.server.respondWith(
      streamText(
        chunk(
          { tool_calls: [wholeCall(0, 'call_a', 'Paris'), wholeCall(1, 'call_b', 'Rome')] },
          'tool_calls',
        ) + 'data: [DONE]\n\n',
      ),
    );
    const { events } = await collect(ollama().chat(request, new AbortController().signal));
    expect(events.map((e) => (e.type === 'tool_call' ? e.callId : e.type))).toEqual([
      'tool_call_delta',
      'tool_call_delta',
      'call_a',
      'call_b',
      'done',
    ]);
  });
});
