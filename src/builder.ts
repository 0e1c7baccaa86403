/**
 * `AgentBuilder`: collects providers, tools, skills, plugins and storages, then `build()`
 * checks every build rule (providers, names, skill dependencies, default model, storages, plugins, config) and returns an `Agent` with immutable registries.
 * The typestate `AgentBuilder<HasProvider>` makes `build()` on a builder without a provider a
 * compile-time error; JS callers get `NO_MODEL_PROVIDER` at run time.
 * @module
 */
import * as z from 'zod/mini';
import { Agent } from './agent.js';
import { AgentConfigSchema, type AgentConfig } from './config.js';
import { AgentError } from './errors.js';
import * as Errors from './error-constructors.js';
import { HookRegistry } from './hooks/hook-registry.js';
import { PluginManager, type PluginRegistration } from './plugins/plugin-manager.js';
import type { ModelProvider } from './ports/model-provider.js';
import type { Plugin } from './ports/plugin.js';
import type { SessionLock } from './ports/session-lock.js';
import type { MemoryStorage, SessionStorage } from './ports/storage.js';
import { parametersSchemaProblem, TOOL_NAME, type ToolHandler } from './ports/tool-handler.js';
import type { ToolSource } from './ports/tool-source.js';
import { ProviderDirectory } from './providers/provider-directory.js';
import { SkillManager } from './skills/skill-manager.js';
import { resolveSessionLock } from './sync/resolve-session-lock.js';
import { ToolDispatcher } from './tools/tool-dispatcher.js';
import { toolSources } from './tools/tool-sources.js';
import { FINAL_ANSWER_TOOL, SkillDefinitionSchema, type SkillDefinition } from './types.js';
import { parseInput } from './validate.js';
import { systemClock } from './clock.js';
import { matching } from './vocabulary/checks.js';

const ToolShapeSchema = z.object({
  name: z
    .string()
    .check(matching(TOOL_NAME, 'must be 1–64 characters of a-z, A-Z, 0-9, _ or - (what model APIs accept)')),
  description: z.string(),
  parameters: z.custom<object>((v) => parametersSchemaProblem(v) === undefined, {
    error: (issue) => parametersSchemaProblem(issue.input),
  }),
  mutating: z.optional(z.boolean()),
  needsApproval: z.optional(
    z.union([z.boolean(), z.custom<() => unknown>((v) => typeof v === 'function', 'expected function')]),
  ),
  execute: z.custom<() => unknown>((v) => typeof v === 'function', 'expected function'),
});

const ProviderShapeSchema = z.object({
  id: z.string().check(z.minLength(1)),
  models: z.array(z.unknown()),
  chat: z.custom<() => unknown>((v) => typeof v === 'function', 'expected function'),
});

const StorageShapeSchema = (methods: readonly string[]) =>
  z.custom<object>(
    (v) =>
      typeof v === 'object' &&
      v !== null &&
      methods.every((m) => typeof (v as Record<string, unknown>)[m] === 'function'),
    `expected an object with ${methods.join(', ')}`,
  );
const SESSION_STORAGE_METHODS = ['saveEvent', 'loadSession', 'listSessions', 'findSessions', 'deleteSession'];
const MEMORY_STORAGE_METHODS = ['search', 'save', 'delete'];

function serves(registry: ProviderDirectory, modelId: string): boolean {
  return registry.models().some((model) => model.id === modelId);
}

/**
 * Builds an {@link Agent}.
 * @example
 * const agent = await new AgentBuilder({ defaultModel: 'gpt-4o-mini' })
 *   .registerModelProvider(new OpenAIProvider({ apiKey, models }))
 *   .registerTool(weather)
 *   .build();
 */
export class AgentBuilder<HasProvider extends boolean = false> {
  readonly #config: AgentConfig;
  readonly #providers: ModelProvider[] = [];
  readonly #tools: ToolHandler[] = [];
  readonly #toolSources: ToolSource[] = [];
  readonly #skills: SkillDefinition[] = [];
  readonly #plugins: PluginRegistration[] = [];
  readonly #sessionStorages: SessionStorage[] = [];
  readonly #memoryStorages: MemoryStorage[] = [];
  /** `undefined` until `registerSessionLock` is called: then the default applies. */
  #sessionLock: SessionLock | null | undefined = undefined;
  /** @internal the typestate marker (types only). */
  declare readonly _hasProvider: HasProvider;

  /** Starts a builder; `config` is validated at `build()`. */
  constructor(config: AgentConfig) {
    this.#config = config;
  }

  /** Adds a model provider (at least one is required). */
  registerModelProvider(provider: ModelProvider): AgentBuilder<true> {
    this.#providers.push(provider);
    return this as AgentBuilder<true>;
  }

  /** Adds a tool; names must be unique and match `^[a-zA-Z0-9_-]{1,64}$`. */
  registerTool(tool: ToolHandler): this {
    this.#tools.push(tool);
    return this;
  }

  /**
   * Adds a source of tools that arrive at run time (e.g. `mcpServer()` from `youyou-agent/mcp`).
   * Its ids must be unique; its tools are asked for before each model request.
   * @example
   * builder.registerToolSource({ id: 'clock', tools: async () => [nowTool] });
   */
  registerToolSource(source: ToolSource): this {
    this.#toolSources.push(source);
    return this;
  }

  /** Adds a skill (invoked by `/name` in user text). */
  registerSkill(skill: SkillDefinition): this {
    this.#skills.push(skill);
    return this;
  }

  /** Adds a plugin; `config` is passed to its `initialize` and to its hooks' payloads. */
  registerPlugin(plugin: Plugin, config?: unknown): this {
    this.#plugins.push({ plugin, config });
    return this;
  }

  /** Sets where sessions are saved (at most one). */
  registerSessionStorage(storage: SessionStorage): this {
    this.#sessionStorages.push(storage);
    return this;
  }

  /**
   * Sets who may write a session across tabs (last call wins); `null` turns the lock off (a
   * storage with `claimWriter` still fences off a second writer). Without a call, the agent uses
   * `defaultSessionLock(storage.namespace)`: Web Locks where `navigator.locks` exists, else none;
   * and none without a session storage, since then no other agent can open its sessions.
   * @example
   * const agent = await new AgentBuilder({ defaultModel: 'gpt-4o-mini' })
   *   .registerModelProvider(provider)
   *   .registerSessionLock(null) // one tab only, or tests
   *   .build();
   */
  registerSessionLock(lock: SessionLock | null): this {
    this.#sessionLock = lock;
    return this;
  }

  /** Sets where memories are saved (at most one). */
  registerMemoryStorage(storage: MemoryStorage): this {
    this.#memoryStorages.push(storage);
    return this;
  }

  /**
   * Checks everything and returns the agent; rejects (never throws synchronously) with the first
   * violation: `NO_MODEL_PROVIDER`, `INVALID_INPUT` (naming the field path), `STORAGE_DUPLICATE`,
   * `NAME_CONFLICT`, `INVALID_DEFAULT_MODEL`, `MODEL_NOT_SUPPORTED`, `SKILL_DEPENDENCY_NOT_MET`,
   * `PLUGIN_INIT_FAILED`. After a failure nothing stays registered or initialized.
   */
  async build(this: AgentBuilder<true>): Promise<Agent> {
    return this.#build();
  }

  async #build(): Promise<Agent> {
    if (this.#providers.length === 0) throw Errors.noModelProvider();
    const config = parseInput(AgentConfigSchema, this.#config, 'config');

    if (this.#sessionStorages.length > 1) throw Errors.storageDuplicate('session');
    if (this.#memoryStorages.length > 1) throw Errors.storageDuplicate('memory');
    const sessionStorage = this.#sessionStorages[0] ?? null;
    const memoryStorage = this.#memoryStorages[0] ?? null;
    if (sessionStorage)
      parseInput(StorageShapeSchema(SESSION_STORAGE_METHODS), sessionStorage, 'sessionStorage');
    if (memoryStorage) parseInput(StorageShapeSchema(MEMORY_STORAGE_METHODS), memoryStorage, 'memoryStorage');
    const sessionLock = resolveSessionLock(this.#sessionLock, sessionStorage);

    const providers = new ProviderDirectory();
    this.#providers.forEach((provider, i) => {
      parseInput(ProviderShapeSchema, provider, `providers[${i}]`);
      providers.register(provider.id, provider);
    });
    if (!serves(providers, config.defaultModel)) throw Errors.invalidDefaultModel(config.defaultModel);

    if (config.memory) {
      if (!memoryStorage) {
        throw Errors.invalidInput('invalid config: config.memory needs a registered MemoryStorage');
      }
      const model = config.memory.extractionModel;
      if (model !== undefined && !serves(providers, model)) throw Errors.modelNotSupported(model);
    }

    // Shapes first (naming the field); the services then enforce their own rules: unique names
    // (NAME_CONFLICT) and tool schemas JSON Schema can express (INVALID_INPUT).
    this.#tools.forEach((tool, i) => parseInput(ToolShapeSchema, tool, `tools[${i}]`));
    // The structured-output tool's name is the runtime's: a turn asking for output offers it.
    if (this.#tools.some((tool) => tool.name === FINAL_ANSWER_TOOL))
      throw new AgentError(
        'NAME_CONFLICT',
        `tool name '${FINAL_ANSWER_TOOL}' is reserved for structured output`,
      );
    const clock = config.clock ?? systemClock;
    const hooks = new HookRegistry({ timeoutMs: config.hookTimeoutMs, clock });
    const tools = new ToolDispatcher({ tools: this.#tools, timeoutMs: config.toolTimeoutMs, hooks, clock });
    const sources = toolSources(
      this.#toolSources,
      // The structured-output tool's name is taken, as a registered tool's is.
      (name) => name === FINAL_ANSWER_TOOL || tools.has(name),
      config.toolSourceTimeoutMs,
      clock,
    );
    const skillList = this.#skills.map((skill, i) =>
      parseInput(SkillDefinitionSchema, skill, `skills[${i}]`),
    );
    const skills = new SkillManager(skillList);
    for (const skill of skillList) {
      for (const tool of skill.requiredTools ?? []) {
        if (!tools.has(tool)) throw Errors.skillDependencyNotMet(skill.name, tool);
      }
    }

    const plugins = new PluginManager(this.#plugins, { timeoutMs: config.hookTimeoutMs, clock });
    try {
      await plugins.initialize(hooks);
    } catch (error) {
      throw AgentError.isInstance(error) ? error : Errors.pluginInitFailed('?', error);
    }

    return new Agent({
      config,
      clock,
      providers,
      tools,
      toolSpecsChars: JSON.stringify(tools.specs).length,
      toolSources: sources,
      hooks,
      skills,
      plugins,
      sessionStorage,
      memoryStorage,
      sessionLock,
    });
  }
}
