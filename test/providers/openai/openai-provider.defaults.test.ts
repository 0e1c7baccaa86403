/**
 * What `OpenAIProvider` takes from its environment when it creates its own client, as the SDK
 * client did: the API key, base URL, organization and project from environment variables, and the
 * refusal to put an API key in a browser page unless `dangerouslyAllowBrowser` says so.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { AgentError } from '../../../src/errors.js';
import { OpenAIProvider } from '../../../src/openai.js';
import type { ChatRequest } from '../../../src/types.js';
import {
  ChatCompletionsServer,
  collect,
  sseEvent,
  streamText,
} from '../../support/chat-completions-server.js';

const models = [
  {
    id: 'm',
    displayName: 'M',
    contextWindow: 8192,
    capabilities: { toolUse: true, vision: false, streaming: true },
  },
];

const request: ChatRequest = { model: 'm', systemPrompt: '', messages: [], tools: [], purpose: 'turn' };

let server: ChatCompletionsServer;
beforeAll(async () => {
  server = await ChatCompletionsServer.start();
  server.respondWith(
    streamText(sseEvent({ choices: [{ index: 0, delta: { content: 'ok' }, finish_reason: 'stop' }] })),
  );
});
afterAll(() => server.close());
afterEach(() => {
  vi.unstubAllEnvs();
  vi.unstubAllGlobals();
});

function constructionError(create: () => unknown): AgentError {
  try {
    create();
  } catch (error) {
    expect(AgentError.isInstance(error)).toBe(true);
    return error as AgentError;
  }
  throw new Error('expected the constructor to throw');
}

describe('OpenAIProvider defaults', () => {
  it('reads OPENAI_API_KEY, OPENAI_BASE_URL, OPENAI_ORG_ID and OPENAI_PROJECT_ID', async () => {
    vi.stubEnv('OPENAI_API_KEY', 'sk-from-env');
    vi.stubEnv('OPENAI_BASE_URL', `${server.baseURL}/`);
    vi.stubEnv('OPENAI_ORG_ID', 'org-1');
    vi.stubEnv('OPENAI_PROJECT_ID', 'proj-1');
    const { error } = await collect(
      new OpenAIProvider({ models }).chat(request, new AbortController().signal),
    );
    expect(error).toBeUndefined();
    const sent = server.requests.at(-1);
    expect(sent?.url).toBe('/v1/chat/completions');
    expect(sent?.headers['authorization']).toBe('Bearer sk-from-env');
    expect(sent?.headers['openai-organization']).toBe('org-1');
    expect(sent?.headers['openai-project']).toBe('proj-1');
  });

  it('prefers the options to the environment', async () => {
    vi.stubEnv('OPENAI_API_KEY', 'sk-from-env');
    vi.stubEnv('OPENAI_BASE_URL', 'http://127.0.0.1:9/v1');
    const provider = new OpenAIProvider({ apiKey: 'sk-option', baseURL: server.baseURL, models });
    const { error } = await collect(provider.chat(request, new AbortController().signal));
    expect(error).toBeUndefined();
    expect(server.requests.at(-1)?.headers['authorization']).toBe('Bearer sk-option');
  });

  it('refuses to run in a browser page without dangerouslyAllowBrowser', () => {
    vi.stubGlobal('window', { document: {} });
    vi.stubGlobal('navigator', {});
    const error = constructionError(() => new OpenAIProvider({ apiKey: 'k', models }));
    expect(error.code).toBe('INVALID_INPUT');
    expect(error.message).toContain('dangerouslyAllowBrowser');
    expect(new OpenAIProvider({ apiKey: 'k', dangerouslyAllowBrowser: true, models }).id).toBe('openai');
  });
});
