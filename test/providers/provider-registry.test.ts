import { beforeAll, describe, expect, it } from 'vitest';
import type { ModelProvider } from '../../src/ports/model-provider.js';
import { OpenAIProvider } from '../../src/openai.js';
import { ProviderRegistry } from '../../src/providers/provider-registry.js';
import type { ChatEvent, ModelInfo } from '../../src/types.js';
import { collect, sseEvent, streamText } from '../support/chat-completions-server.js';
import { withChatServer } from '../support/chat-server.js';
import { expectAgentError } from '../support/errors.js';
import { chatRequest } from '../support/models.js';
import { readResponsesStream } from '../support/responses-server.js';

const info = (id: string): ModelInfo => ({
  id,
  displayName: id,
  contextWindow: 4096,
  capabilities: { toolUse: false, vision: false, streaming: true },
});

/** A provider that answers every request with `done` (no network). */
function fakeProvider(id: string, modelIds: string[]): ModelProvider {
  return {
    id,
    models: modelIds.map(info),
    async *chat(): AsyncGenerator<ChatEvent> {
      yield { type: 'done', finishReason: 'stop' };
    },
  };
}

describe('ProviderRegistry', () => {
  it('registers providers, finds them by name, and resolves model ids to their provider', () => {
    const a = fakeProvider('a', ['m1', 'm2']);
    const b = fakeProvider('b', ['m3']);
    const registry = new ProviderRegistry().register('a', a).register('b', b);
    expect(registry.get('a')).toBe(a);
    expect(registry.get('nope')).toBeUndefined();
    expect(registry.resolve('m3')).toEqual({ providerName: 'b', provider: b, model: info('m3') });
    expect(registry.models().map((m) => m.id)).toEqual(['m1', 'm2', 'm3']);
    expect(registry.providers()).toEqual([
      { name: 'a', provider: a },
      { name: 'b', provider: b },
    ]);
  });

  it('throws MODEL_NOT_SUPPORTED for a model no provider serves', async () => {
    const registry = new ProviderRegistry().register('a', fakeProvider('a', ['m1']));
    await expectAgentError(() => registry.resolve('gpt-9'), 'MODEL_NOT_SUPPORTED');
  });

  it('defaults to the first registered provider until setDefault names another', async () => {
    const a = fakeProvider('a', ['m1']);
    const b = fakeProvider('b', ['m2']);
    const registry = new ProviderRegistry();
    expect(registry.getDefault()).toBeUndefined();
    registry.register('a', a).register('b', b);
    expect(registry.getDefault()).toBe(a);
    registry.setDefault('b');
    expect(registry.getDefault()).toBe(b);
    await expectAgentError(() => registry.setDefault('c'), 'INVALID_INPUT');
    expect(registry.getDefault()).toBe(b);
  });

  it('rejects a duplicate provider name with NAME_CONFLICT', async () => {
    const registry = new ProviderRegistry().register('a', fakeProvider('a', ['m1']));
    await expectAgentError(() => registry.register('a', fakeProvider('a', ['m2'])), 'NAME_CONFLICT');
    expect(registry.models().map((m) => m.id)).toEqual(['m1']);
  });

  it('rejects a model id served by two providers with NAME_CONFLICT, registering nothing of the second', async () => {
    const registry = new ProviderRegistry().register('a', fakeProvider('a', ['m1']));
    const error = await expectAgentError(
      () => registry.register('b', fakeProvider('b', ['m2', 'm1'])),
      'NAME_CONFLICT',
    );
    expect(error.message).toContain("'m1'");
    expect(registry.get('b')).toBeUndefined();
    expect(() => registry.resolve('m2')).toThrow();
  });

  it('rejects a provider listing the same model twice', async () => {
    await expectAgentError(
      () => new ProviderRegistry().register('a', fakeProvider('a', ['m1', 'm1'])),
      'NAME_CONFLICT',
    );
  });

  it('rejects malformed providers and names with INVALID_INPUT', async () => {
    const registry = new ProviderRegistry();
    await expectAgentError(() => registry.register('', fakeProvider('a', ['m1'])), 'INVALID_INPUT');
    const noChat = { id: 'x', models: [info('m1')] } as unknown as ModelProvider;
    await expectAgentError(() => registry.register('x', noChat), 'INVALID_INPUT');
    const badModel = { ...fakeProvider('y', []), models: [{ id: 'm' }] } as unknown as ModelProvider;
    await expectAgentError(() => registry.register('y', badModel), 'INVALID_INPUT');
  });

  it('accepts a class-based provider (OpenAIProvider)', () => {
    const provider = new OpenAIProvider({
      apiKey: 'k',
      baseURL: 'http://127.0.0.1:9/v1',
      models: [info('m1')],
    });
    expect(new ProviderRegistry().register('openai', provider).resolve('m1').provider).toBe(provider);
  });
});

describe('ProviderRegistry.registerWithConfig', () => {
  const local = withChatServer();
  beforeAll(() => {
    local.server.respondWith(
      streamText(sseEvent({ choices: [{ index: 0, delta: { content: 'pong' }, finish_reason: 'stop' }] })),
    );
  });

  it('creates an openai-compatible provider named after its registration, sending max_tokens', async () => {
    const registry = new ProviderRegistry();
    const provider = await registry.registerWithConfig('local', 'openai-compatible', {
      baseURL: local.server.baseURL,
      apiKey: 'ollama',
      models: [info('qwen3:8b')],
    });
    expect(provider.id).toBe('local');
    const { provider: resolved } = registry.resolve('qwen3:8b');
    expect(resolved).toBe(provider);
    const request = chatRequest('', { model: 'qwen3:8b', messages: [], maxOutputTokens: 64 });
    const { events, error } = await collect(resolved.chat(request, new AbortController().signal));
    expect(error).toBeUndefined();
    expect(events).toEqual([
      { type: 'text_delta', text: 'pong' },
      { type: 'done', finishReason: 'stop' },
    ]);
    expect(local.server.requests.at(-1)?.body['max_tokens']).toBe(64);
  });

  it('creates an openai provider that sends max_completion_tokens', async () => {
    const registry = new ProviderRegistry();
    const provider = await registry.registerWithConfig('openai', 'openai', {
      baseURL: local.server.baseURL,
      apiKey: 'sk',
      models: [info('gpt-x')],
    });
    const request = chatRequest('', { model: 'gpt-x', systemPrompt: 's', messages: [], maxOutputTokens: 32 });
    await collect(provider.chat(request, new AbortController().signal));
    expect(local.server.requests.at(-1)?.body['max_completion_tokens']).toBe(32);
  });

  it('creates an openai-responses provider: POST /responses, stateless, named after its registration', async () => {
    const registry = new ProviderRegistry();
    const provider = await registry.registerWithConfig('responses', 'openai-responses', {
      baseURL: local.server.baseURL,
      apiKey: 'sk',
      models: [info('gpt-r')],
      maxTokensField: 'max_tokens',
    });
    expect([provider.id, registry.resolve('gpt-r').provider]).toEqual(['responses', provider]);
    local.server.respondWith(streamText(readResponsesStream('vercel-azure-text.sse')));
    const request = chatRequest('hi', { model: 'gpt-r', maxOutputTokens: 16 });
    const { events } = await collect(provider.chat(request, new AbortController().signal));
    expect(events.at(-1)).toEqual({
      type: 'done',
      finishReason: 'stop',
      responseId: expect.stringMatching(/^resp_/),
      responseModel: 'gpt-5.1',
    });
    const sent = local.server.requests.at(-1)!;
    expect([sent.url, sent.body['store'], sent.body['max_output_tokens'], sent.body['max_tokens']]).toEqual([
      '/v1/responses',
      false,
      16,
      undefined,
    ]);
  });

  it('rejects invalid config, an unknown type and a missing baseURL with INVALID_INPUT', async () => {
    const registry = new ProviderRegistry();
    const models = [info('m')];
    await expectAgentError(
      registry.registerWithConfig('a', 'openai-compatible', { apiKey: 'k', models }),
      'INVALID_INPUT',
    );
    await expectAgentError(
      registry.registerWithConfig('a', 'anthropic' as 'openai', { apiKey: 'k', models }),
      'INVALID_INPUT',
    );
    const unknownKey = { apiKey: 'k', models, temperature: 0.2 } as unknown as {
      apiKey: string;
      models: ModelInfo[];
    };
    const error = await expectAgentError(
      registry.registerWithConfig('a', 'openai', unknownKey),
      'INVALID_INPUT',
    );
    expect(error.message).toContain('temperature');
    await expectAgentError(
      registry.registerWithConfig('a', 'openai', { apiKey: 'k', models: [] }),
      'INVALID_INPUT',
    );
    await expectAgentError(
      registry.registerWithConfig('a', 'openai', { apiKey: 'k', baseURL: 'not a url', models }),
      'INVALID_INPUT',
    );
    expect(registry.providers()).toEqual([]);
  });

  it('rejects a taken name or model id with NAME_CONFLICT', async () => {
    const registry = new ProviderRegistry().register('local', fakeProvider('local', ['m']));
    const config = { baseURL: local.server.baseURL, apiKey: 'k', models: [info('other')] };
    await expectAgentError(
      registry.registerWithConfig('local', 'openai-compatible', config),
      'NAME_CONFLICT',
    );
    const clash = { ...config, models: [info('m')] };
    await expectAgentError(
      registry.registerWithConfig('second', 'openai-compatible', clash),
      'NAME_CONFLICT',
    );
  });
});
