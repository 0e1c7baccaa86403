/**
 * Both OpenAI providers take `models` as plain ids (with conservative defaults) as well as
 * `ModelInfo`s, and need no API key when they are pointed at a server of one's own: what goes on
 * the wire is checked over real HTTP on 127.0.0.1.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { OpenAIProvider, OpenAIResponsesProvider } from '../../../src/openai.js';
import { ProviderRegistry } from '../../../src/index.js';
import type { ModelInfo } from '../../../src/types.js';
import {
  ChatCompletionsServer,
  collect,
  sseEvent,
  streamText,
} from '../../support/chat-completions-server.js';
import { expectAgentError } from '../../support/errors.js';
import { chatRequest } from '../../support/models.js';
import { readResponsesStream } from '../../support/responses-server.js';

const signal = () => new AbortController().signal;
const request = (model: string) => chatRequest('hi', { model });
const chatAnswer = streamText(
  sseEvent({ choices: [{ index: 0, delta: { content: 'ok' }, finish_reason: 'stop' }] }),
);
const responsesAnswer = streamText(readResponsesStream('vercel-azure-text.sse'));

const byIdDefaults = (id: string): ModelInfo => ({
  id,
  displayName: id,
  contextWindow: 128_000,
  capabilities: { toolUse: true, vision: false, streaming: true },
});
const described: ModelInfo = {
  id: 'described',
  displayName: 'Described',
  contextWindow: 4096,
  capabilities: { toolUse: false, vision: true, streaming: true },
  pricing: { inputPerMillion: 1, outputPerMillion: 2 },
};

let server: ChatCompletionsServer;
beforeAll(async () => {
  server = await ChatCompletionsServer.start();
});
afterAll(() => server.close());
afterEach(() => {
  vi.unstubAllEnvs();
  vi.unstubAllGlobals();
});

/** No key, no base URL from the environment: what the options say is all there is. */
function withoutEnvironment(): void {
  vi.stubEnv('OPENAI_API_KEY', '');
  vi.stubEnv('OPENAI_BASE_URL', '');
}

const providers = {
  OpenAIProvider: {
    create: (options: ConstructorParameters<typeof OpenAIProvider>[0]) => new OpenAIProvider(options),
    answer: chatAnswer,
    path: '/v1/chat/completions',
  },
  OpenAIResponsesProvider: {
    create: (options: ConstructorParameters<typeof OpenAIResponsesProvider>[0]) =>
      new OpenAIResponsesProvider(options),
    answer: responsesAnswer,
    path: '/v1/responses',
  },
} as const;

describe.each(Object.entries(providers))('%s', (_name, { create, answer, path }) => {
  it('takes plain ids beside ModelInfos: an id alone gets the conservative defaults, no pricing', () => {
    const provider = create({ apiKey: 'k', models: ['gpt-4.1-mini', described, 'qwen3:8b'] });
    expect(provider.models).toEqual([byIdDefaults('gpt-4.1-mini'), described, byIdDefaults('qwen3:8b')]);
    expect(provider.models[0]).not.toHaveProperty('pricing');
    expect(Object.isFrozen(provider.models[0])).toBe(true);
  });

  it('rejects an empty id with INVALID_INPUT', async () => {
    await expectAgentError(() => create({ apiKey: 'k', models: [''] }), 'INVALID_INPUT', 'models');
  });

  it('sends a model by id as that id, and prices nothing for it', async () => {
    withoutEnvironment();
    server.respondWith(answer);
    const provider = create({ baseURL: server.baseURL, apiKey: 'k', models: ['gpt-4.1-mini'] });
    const { events, error } = await collect(provider.chat(request('gpt-4.1-mini'), signal()));
    expect(error).toBeUndefined();
    const sent = server.requests.at(-1)!;
    expect([sent.url, sent.body['model']]).toEqual([path, 'gpt-4.1-mini']);
    const usage = events.find((event) => event.type === 'usage');
    expect(usage && 'cost' in usage ? usage.cost : undefined).toBeUndefined();
  });

  it('with a baseURL and no key, sends no Authorization header at all', async () => {
    withoutEnvironment();
    server.respondWith(answer);
    const provider = create({ baseURL: server.baseURL, models: ['local-model'] });
    const { error } = await collect(provider.chat(request('local-model'), signal()));
    expect(error).toBeUndefined();
    const sent = server.requests.at(-1)!;
    expect(sent.url).toBe(path);
    expect(sent.headers).not.toHaveProperty('authorization');
  });

  it('with a key from the environment and a baseURL, still sends that key', async () => {
    withoutEnvironment();
    vi.stubEnv('OPENAI_API_KEY', 'sk-from-env');
    server.respondWith(answer);
    const provider = create({ baseURL: server.baseURL, models: ['local-model'] });
    await collect(provider.chat(request('local-model'), signal()));
    expect(server.requests.at(-1)!.headers['authorization']).toBe('Bearer sk-from-env');
  });

  it('in a browser page, needs no dangerouslyAllowBrowser when there is no key to expose', async () => {
    withoutEnvironment();
    vi.stubGlobal('window', { document: {} });
    vi.stubGlobal('navigator', {});
    expect(create({ baseURL: server.baseURL, models: ['local-model'] }).models).toHaveLength(1);
    await expectAgentError(
      () => create({ baseURL: server.baseURL, apiKey: 'k', models: ['local-model'] }),
      'INVALID_INPUT',
      'dangerouslyAllowBrowser',
    );
  });

  it('without a baseURL and without a key, is INVALID_INPUT naming both', async () => {
    withoutEnvironment();
    const error = await expectAgentError(() => create({ models: ['gpt-4.1-mini'] }), 'INVALID_INPUT');
    expect(error.message).toContain('apiKey');
    expect(error.message).toContain('baseURL');
  });
});

describe('ProviderRegistry.registerWithConfig', () => {
  it('takes models by id and no key for an openai-compatible server', async () => {
    withoutEnvironment();
    server.respondWith(chatAnswer);
    const registry = new ProviderRegistry();
    const provider = await registry.registerWithConfig('local', 'openai-compatible', {
      baseURL: server.baseURL,
      models: ['qwen3:8b'],
    });
    expect(registry.resolve('qwen3:8b').provider).toBe(provider);
    expect(provider.models).toEqual([byIdDefaults('qwen3:8b')]);
    const { error } = await collect(provider.chat(request('qwen3:8b'), signal()));
    expect(error).toBeUndefined();
    expect(server.requests.at(-1)!.headers).not.toHaveProperty('authorization');
  });
});
