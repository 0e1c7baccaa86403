import OpenAI from 'openai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OpenAIProvider, type OpenAIProviderOptions } from '../../../src/openai.js';
import type { ModelInfo } from '../../../src/types.js';
import { expectAgentError } from '../../support/errors.js';

const model: ModelInfo = {
  id: 'm',
  displayName: 'M',
  contextWindow: 4096,
  capabilities: { toolUse: true, vision: false, streaming: true },
  pricing: { inputPerMillion: 1, outputPerMillion: 2 },
};

/** The AgentError the constructor throws for `options`. */
const constructionError = (options: unknown) =>
  expectAgentError(() => new OpenAIProvider(options as OpenAIProviderOptions), 'INVALID_INPUT');

describe('OpenAIProvider options', () => {
  // The SDK falls back to OPENAI_API_KEY; hide it so "no key" really means no key.
  let savedKey: string | undefined;
  beforeEach(() => {
    savedKey = process.env['OPENAI_API_KEY'];
    delete process.env['OPENAI_API_KEY'];
  });
  afterEach(() => {
    if (savedKey !== undefined) process.env['OPENAI_API_KEY'] = savedKey;
  });

  it("defaults its id to 'openai' and exposes its models", () => {
    const provider = new OpenAIProvider({ apiKey: 'k', models: [model] });
    expect(provider.id).toBe('openai');
    expect(provider.models).toEqual([model]);
    expect(new OpenAIProvider({ id: 'router', apiKey: 'k', models: [model] }).id).toBe('router');
  });

  it('rejects invalid options with INVALID_INPUT naming the field', async () => {
    const error = await constructionError({ apiKey: 'k', models: [{ ...model, contextWindow: 0 }] });
    expect(error.message).toContain('contextWindow');
    await constructionError({ apiKey: 'k', models: [model], maxTokensField: 'tokens' });
    await constructionError({ apiKey: 'k', models: [model], client: {} });
  });

  it('turns a missing API key into INVALID_INPUT', async () => {
    const error = await constructionError({ models: [model] });
    expect(error.message).toContain('apiKey');
  });

  it('accepts a ready client, but not together with options that configure one', async () => {
    const client = new OpenAI({ apiKey: 'k', baseURL: 'http://127.0.0.1:9/v1' });
    expect(new OpenAIProvider({ client, models: [model] }).models).toHaveLength(1);
    const error = await constructionError({ client, apiKey: 'k', models: [model] });
    expect(error.message).toContain("'apiKey'");
  });
});
