import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentError } from '../../src/errors.js';
import type { ModelProvider } from '../../src/ports/model-provider.js';
import { OpenAIProvider } from '../../src/providers/openai/openai-provider.js';
import { ProviderRegistry } from '../../src/providers/provider-registry.js';
import type { ChatEvent, ChatRequest, ModelInfo } from '../../src/types.js';
import { ChatCompletionsServer, collect, sseEvent, streamText } from '../support/chat-completions-server.js';

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

function rejection(fn: () => unknown): AgentError {
  try {
    fn();
  } catch (error) {
    expect(AgentError.isInstance(error)).toBe(true);
    return error as AgentError;
  }
  throw new Error('expected a throw');
}

async function asyncRejection(promise: Promise<unknown>): Promise<AgentError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(AgentError.isInstance(error)).toBe(true);
  return error as AgentError;
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

  it('throws MODEL_NOT_SUPPORTED for a model no provider serves', () => {
    const registry = new ProviderRegistry().register('a', fakeProvider('a', ['m1']));
    expect(rejection(() => registry.resolve('gpt-9')).code).toBe('MODEL_NOT_SUPPORTED');
  });

  it('defaults to the first registered provider until setDefault names another', () => {
    const a = fakeProvider('a', ['m1']);
    const b = fakeProvider('b', ['m2']);
    const registry = new ProviderRegistry();
    expect(registry.getDefault()).toBeUndefined();
    registry.register('a', a).register('b', b);
    expect(registry.getDefault()).toBe(a);
    registry.setDefault('b');
    expect(registry.getDefault()).toBe(b);
    expect(rejection(() => registry.setDefault('c')).code).toBe('INVALID_INPUT');
    expect(registry.getDefault()).toBe(b);
  });

  it('rejects a duplicate provider name with NAME_CONFLICT', () => {
    const registry = new ProviderRegistry().register('a', fakeProvider('a', ['m1']));
    const error = rejection(() => registry.register('a', fakeProvider('a', ['m2'])));
    expect(error.code).toBe('NAME_CONFLICT');
    expect(registry.models().map((m) => m.id)).toEqual(['m1']);
  });

  it('rejects a model id served by two providers with NAME_CONFLICT, registering nothing of the second', () => {
    const registry = new ProviderRegistry().register('a', fakeProvider('a', ['m1']));
    const error = rejection(() => registry.register('b', fakeProvider('b', ['m2', 'm1'])));
    expect(error.code).toBe('NAME_CONFLICT');
    expect(error.message).toContain("'m1'");
    expect(registry.get('b')).toBeUndefined();
    expect(() => registry.resolve('m2')).toThrow();
  });

  it('rejects a provider listing the same model twice', () => {
    expect(rejection(() => new ProviderRegistry().register('a', fakeProvider('a', ['m1', 'm1']))).code).toBe(
      'NAME_CONFLICT',
    );
  });

  it('rejects malformed providers and names with INVALID_INPUT', () => {
    const registry = new ProviderRegistry();
    expect(rejection(() => registry.register('', fakeProvider('a', ['m1']))).code).toBe('INVALID_INPUT');
    const noChat = { id: 'x', models: [info('m1')] } as unknown as ModelProvider;
    expect(rejection(() => registry.register('x', noChat)).code).toBe('INVALID_INPUT');
    const badModel = { ...fakeProvider('y', []), models: [{ id: 'm' }] } as unknown as ModelProvider;
    expect(rejection(() => registry.register('y', badModel)).code).toBe('INVALID_INPUT');
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
  let server: ChatCompletionsServer;
  beforeAll(async () => {
    server = await ChatCompletionsServer.start();
    server.respondWith(
      streamText(sseEvent({ choices: [{ index: 0, delta: { content: 'pong' }, finish_reason: 'stop' }] })),
    );
  });
  afterAll(() => server.close());

  it('creates an openai-compatible provider named after its registration, sending max_tokens', async () => {
    const registry = new ProviderRegistry();
    const provider = await registry.registerWithConfig('local', 'openai-compatible', {
      baseURL: server.baseURL,
      apiKey: 'ollama',
      models: [info('qwen3:8b')],
    });
    expect(provider.id).toBe('local');
    const { provider: resolved } = registry.resolve('qwen3:8b');
    expect(resolved).toBe(provider);
    const request: ChatRequest = {
      model: 'qwen3:8b',
      systemPrompt: '',
      messages: [],
      tools: [],
      maxOutputTokens: 64,
      purpose: 'turn',
    };
    const { events, error } = await collect(resolved.chat(request, new AbortController().signal));
    expect(error).toBeUndefined();
    expect(events).toEqual([
      { type: 'text_delta', text: 'pong' },
      { type: 'done', finishReason: 'stop' },
    ]);
    expect(server.requests.at(-1)?.body['max_tokens']).toBe(64);
  });

  it('creates an openai provider that sends max_completion_tokens', async () => {
    const registry = new ProviderRegistry();
    const provider = await registry.registerWithConfig('openai', 'openai', {
      baseURL: server.baseURL,
      apiKey: 'sk',
      models: [info('gpt-x')],
    });
    const request: ChatRequest = {
      model: 'gpt-x',
      systemPrompt: 's',
      messages: [],
      tools: [],
      maxOutputTokens: 32,
      purpose: 'turn',
    };
    await collect(provider.chat(request, new AbortController().signal));
    expect(server.requests.at(-1)?.body['max_completion_tokens']).toBe(32);
  });

  it('rejects invalid config, an unknown type and a missing baseURL with INVALID_INPUT', async () => {
    const registry = new ProviderRegistry();
    const models = [info('m')];
    expect(
      (await asyncRejection(registry.registerWithConfig('a', 'openai-compatible', { apiKey: 'k', models })))
        .code,
    ).toBe('INVALID_INPUT');
    expect(
      (
        await asyncRejection(
          registry.registerWithConfig('a', 'anthropic' as 'openai', { apiKey: 'k', models }),
        )
      ).code,
    ).toBe('INVALID_INPUT');
    const unknownKey = { apiKey: 'k', models, temperature: 0.2 } as unknown as {
      apiKey: string;
      models: ModelInfo[];
    };
    const error = await asyncRejection(registry.registerWithConfig('a', 'openai', unknownKey));
    expect(error.code).toBe('INVALID_INPUT');
    expect(error.message).toContain('temperature');
    expect(
      (await asyncRejection(registry.registerWithConfig('a', 'openai', { apiKey: 'k', models: [] }))).code,
    ).toBe('INVALID_INPUT');
    expect(
      (
        await asyncRejection(
          registry.registerWithConfig('a', 'openai', { apiKey: 'k', baseURL: 'not a url', models }),
        )
      ).code,
    ).toBe('INVALID_INPUT');
    expect(registry.providers()).toEqual([]);
  });

  it('rejects a taken name or model id with NAME_CONFLICT', async () => {
    const registry = new ProviderRegistry().register('local', fakeProvider('local', ['m']));
    const config = { baseURL: server.baseURL, apiKey: 'k', models: [info('other')] };
    expect(
      (await asyncRejection(registry.registerWithConfig('local', 'openai-compatible', config))).code,
    ).toBe('NAME_CONFLICT');
    const clash = { ...config, models: [info('m')] };
    expect(
      (await asyncRejection(registry.registerWithConfig('second', 'openai-compatible', clash))).code,
    ).toBe('NAME_CONFLICT');
  });
});
