/**
 * `ProviderRegistry`: a {@link ProviderDirectory} that can also create OpenAI-type providers from
 * plain config. The agent itself uses the directory, so only an app that imports this class
 * bundles the OpenAI provider (and needs the optional `openai` package installed).
 * @module
 */
import type { ModelProvider } from '../ports/model-provider.js';
import { parseInput } from '../validate.js';
import {
  OpenAICompatibleConfigSchema,
  OpenAIProviderConfigSchema,
  ProviderTypeSchema,
  type OpenAIProviderConfig,
  type ProviderType,
} from './openai/config.js';
import { ProviderDirectory, ProviderNameSchema } from './provider-directory.js';

/**
 * Named model providers, a default, model id → provider resolution, and OpenAI-type providers
 * created from plain config.
 *
 * Names and model ids are checked when a provider is registered: a provider name used twice, or
 * a model id served by two providers, is a `NAME_CONFLICT`. The model list is read once, at
 * registration.
 * @example
 * const registry = new ProviderRegistry();
 * await registry.registerWithConfig('local', 'openai-compatible', {
 *   baseURL: 'http://127.0.0.1:11434/v1', // a local server: no key needed
 *   models: ['qwen3:8b'], // by id alone, with conservative defaults
 * });
 * registry.resolve('qwen3:8b').provider; // the provider named 'local'
 */
export class ProviderRegistry extends ProviderDirectory {
  /**
   * Creates an OpenAI-type provider from plain config and registers it under `name` (also its
   * `id`). Asynchronous because it loads the OpenAI provider only when called: a bundler that
   * splits code puts it in a chunk of its own, loaded then. Needs the `openai` package. Rejects
   * with `INVALID_INPUT` for an unknown type or invalid config, and like {@link register} for
   * conflicts.
   */
  async registerWithConfig(
    name: string,
    type: ProviderType,
    config: OpenAIProviderConfig,
  ): Promise<ModelProvider> {
    parseInput(ProviderNameSchema, name, 'provider name');
    const kind = parseInput(ProviderTypeSchema, type, 'provider type');
    const schema = kind === 'openai-compatible' ? OpenAICompatibleConfigSchema : OpenAIProviderConfigSchema;
    const parsed = parseInput(schema, config, 'provider config');
    this.assertNameFree(name);
    if (kind === 'openai-responses') {
      const { maxTokensField: _unused, ...options } = parsed;
      const { OpenAIResponsesProvider } = await import('./openai/responses/openai-responses-provider.js');
      const provider = new OpenAIResponsesProvider({ ...options, id: name });
      this.register(name, provider);
      return provider;
    }
    const { OpenAIProvider } = await import('./openai/openai-provider.js');
    const provider = new OpenAIProvider({
      ...parsed,
      id: name,
      maxTokensField:
        parsed.maxTokensField ?? (kind === 'openai-compatible' ? 'max_tokens' : 'max_completion_tokens'),
    });
    this.register(name, provider);
    return provider;
  }
}
