/**
 * `ProviderDirectory`: the named model providers of an agent, a default one, and which provider
 * serves which model id. What the agent itself uses; the public `ProviderRegistry` adds creating
 * OpenAI-type providers from plain config.
 * @module
 */
import * as z from 'zod/mini';
import { AgentError } from '../errors.js';
import * as Errors from '../error-constructors.js';
import type { ModelProvider } from '../ports/model-provider.js';
import { ModelInfoSchema, type ModelInfo } from '../types.js';
import { parseInput } from '../validate.js';

/** What `register` checks of a provider before accepting it. */
const ModelProviderShapeSchema = z.object({
  id: z.string().check(z.minLength(1)),
  models: z.array(ModelInfoSchema),
  chat: z.custom<ModelProvider['chat']>((value) => typeof value === 'function'),
});

/** A provider's registered name. */
export const ProviderNameSchema = z.string().check(z.minLength(1));

/** A provider as registered, with its name. */
export interface RegisteredProvider {
  name: string;
  provider: ModelProvider;
}

/** The provider that serves a model id, and the model's info. */
export interface ResolvedModel {
  /** The registered name of the provider. */
  providerName: string;
  provider: ModelProvider;
  model: ModelInfo;
}

/**
 * Named model providers, a default, and model id → provider resolution.
 *
 * Names and model ids are checked when a provider is registered: a provider name used twice, or
 * a model id served by two providers, is a `NAME_CONFLICT`. The model list is read once, at
 * registration.
 * @example
 * const directory = new ProviderDirectory().register('local', myProvider);
 * directory.resolve('my-model').provider; // myProvider
 */
export class ProviderDirectory {
  readonly #providers = new Map<string, ModelProvider>();
  readonly #models = new Map<string, ResolvedModel>();
  #defaultName: string | undefined;

  /**
   * Adds `provider` under `name`. Throws `INVALID_INPUT` for an empty name or a malformed provider,
   * `NAME_CONFLICT` when the name is taken or one of its model ids is already served. Nothing is
   * registered when it throws.
   */
  register(name: string, provider: ModelProvider): this {
    parseInput(ProviderNameSchema, name, 'provider name');
    const { models } = parseInput(ModelProviderShapeSchema, provider, 'provider');
    this.assertNameFree(name);
    const added = new Map<string, ResolvedModel>();
    for (const model of models) {
      const owner = this.#models.get(model.id)?.providerName ?? (added.has(model.id) ? name : undefined);
      if (owner !== undefined) {
        throw new AgentError(
          'NAME_CONFLICT',
          `model id '${model.id}' is served by provider '${owner}' and by provider '${name}'`,
        );
      }
      added.set(model.id, { providerName: name, provider, model });
    }
    this.#providers.set(name, provider);
    for (const [id, resolved] of added) this.#models.set(id, resolved);
    return this;
  }

  /** Makes the provider named `name` the default. Throws `INVALID_INPUT` when there is none. */
  setDefault(name: string): this {
    if (!this.#providers.has(name)) {
      throw Errors.invalidInput(`no provider named '${name}' is registered`);
    }
    this.#defaultName = name;
    return this;
  }

  /** The provider registered as `name`. */
  get(name: string): ModelProvider | undefined {
    return this.#providers.get(name);
  }

  /** The default provider: the one set with {@link setDefault}, else the first registered. */
  getDefault(): ModelProvider | undefined {
    if (this.#defaultName !== undefined) return this.#providers.get(this.#defaultName);
    return this.#providers.values().next().value;
  }

  /** The provider serving `modelId`, and the model. Throws `MODEL_NOT_SUPPORTED` when none does. */
  resolve(modelId: string): ResolvedModel {
    const resolved = this.#models.get(modelId);
    if (!resolved) throw Errors.modelNotSupported(modelId);
    return resolved;
  }

  /** Every model of every provider, in registration order. */
  models(): ModelInfo[] {
    return [...this.#models.values()].map((resolved) => resolved.model);
  }

  /** Every provider with its name, in registration order. */
  providers(): RegisteredProvider[] {
    return [...this.#providers].map(([name, provider]) => ({ name, provider }));
  }

  /** Throws `NAME_CONFLICT` when a provider is already registered as `name`. */
  protected assertNameFree(name: string): void {
    if (this.#providers.has(name)) throw Errors.nameConflict('provider', name);
  }
}
