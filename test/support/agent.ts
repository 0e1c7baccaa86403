/**
 * Building agents for tests: {@link createTestAgent} (one factory, whatever the test registers),
 * {@link testPlugin} (a plugin from its hook handlers) and {@link recordingTool}. Only the public
 * entry points are imported, so the browser page bundles use this too.
 * @module
 */
import * as z from 'zod/mini';
import {
  AgentBuilder,
  defineTool,
  InMemoryMemoryStorage,
  InMemorySessionStorage,
  type Agent,
  type AgentConfig,
  type HookEvent,
  type HookHandler,
  type MemoryStorage,
  type ModelInfo,
  type ModelProvider,
  type Plugin,
  type SessionLock,
  type SessionStorage,
  type SkillDefinition,
  type ToolHandler,
  type ToolSource,
} from '../../src/index.js';
import { ScriptedModelProvider, SCRIPTED_MODEL, type ScriptStep } from '../../src/testing/index.js';
import { deferred } from './waits.js';

/** The id of the model a scripted provider serves by default. */
export const MODEL = SCRIPTED_MODEL.id;

/** What {@link createTestAgent} registers. Everything is optional. */
export interface TestAgentOptions {
  /** The responses of the default {@link ScriptedModelProvider}, one per model call. */
  script?: ScriptStep[];
  /** The models of the default scripted provider. Default `[SCRIPTED_MODEL]`. */
  models?: ModelInfo[];
  /** Tools, registered in order. */
  tools?: ToolHandler[];
  /** Tool sources, registered in order. */
  toolSources?: ToolSource[];
  /** Skills, registered in order. */
  skills?: SkillDefinition[];
  /** Plugins in registration order; `[plugin, config]` passes the plugin its config. */
  plugins?: (Plugin | [Plugin, unknown])[];
  /** Default: a fresh `InMemorySessionStorage`; `null` registers none. */
  sessionStorage?: SessionStorage | null;
  /** Default: a fresh `InMemoryMemoryStorage` when `memory` is set, none otherwise. */
  memoryStorage?: MemoryStorage;
  /** `config.memory`, e.g. `{ namespace: 'user-1' }`. */
  memory?: AgentConfig['memory'];
  /** `registerSessionLock(lock)`; unset: the default (none in Node). */
  lock?: SessionLock | null;
  /** More config. `defaultModel` defaults to the provider's first model. */
  config?: Partial<AgentConfig>;
}

/** An agent built by {@link createTestAgent}, with what was registered on it. */
export interface TestAgent<P extends ModelProvider> {
  agent: Agent;
  provider: P;
  sessionStorage: SessionStorage | null;
  memoryStorage: MemoryStorage | null;
}

/**
 * An agent for a test: a {@link ScriptedModelProvider} playing `script` (or the given `provider`),
 * in-memory session storage, and whatever tools, skills, plugins and memory the test names.
 * @example
 * const { agent, provider } = await createTestAgent({ script: [reply.text('Hi!')], plugins: [audit] });
 * const session = await agent.newSession();
 * await (await session.sendMessage('hello')).result;
 * provider.requests[0]?.systemPrompt;
 */
export function createTestAgent<P extends ModelProvider>(
  options: TestAgentOptions & { provider: P },
): Promise<TestAgent<P>>;
export function createTestAgent(options?: TestAgentOptions): Promise<TestAgent<ScriptedModelProvider>>;
export async function createTestAgent(
  options: TestAgentOptions & { provider?: ModelProvider } = {},
): Promise<TestAgent<ModelProvider>> {
  const provider =
    options.provider ??
    new ScriptedModelProvider({ script: options.script ?? [], models: options.models ?? [SCRIPTED_MODEL] });
  const sessionStorage =
    options.sessionStorage === undefined ? new InMemorySessionStorage() : options.sessionStorage;
  const memoryStorage = options.memoryStorage ?? (options.memory ? new InMemoryMemoryStorage() : null);
  let builder = new AgentBuilder({
    defaultModel: provider.models[0]!.id,
    ...(options.memory && { memory: options.memory }),
    ...options.config,
  }).registerModelProvider(provider);
  for (const tool of options.tools ?? []) builder = builder.registerTool(tool);
  for (const source of options.toolSources ?? []) builder = builder.registerToolSource(source);
  for (const skill of options.skills ?? []) builder = builder.registerSkill(skill);
  for (const entry of options.plugins ?? []) {
    builder = Array.isArray(entry)
      ? builder.registerPlugin(entry[0], entry[1])
      : builder.registerPlugin(entry);
  }
  if (sessionStorage) builder = builder.registerSessionStorage(sessionStorage);
  if (memoryStorage) builder = builder.registerMemoryStorage(memoryStorage);
  if (options.lock !== undefined) builder = builder.registerSessionLock(options.lock);
  return { agent: await builder.build(), provider, sessionStorage, memoryStorage };
}

/** Hook handlers by event: one, or several tapped in the order listed. */
export type Taps = { [E in HookEvent]?: HookHandler<E> | HookHandler<E>[] };

/**
 * A plugin `id` that taps `taps` (events in the order listed), plus any other plugin field.
 * @example
 * const audit = testPlugin('audit', { turn_end: ({ data }) => void log.push(data.status) });
 * const flaky = testPlugin('flaky', {}, { shutdown: () => Promise.reject(new Error('stuck')) });
 */
export function testPlugin(id: string, taps: Taps = {}, fields: Partial<Plugin> = {}): Plugin {
  return {
    id,
    displayName: id,
    description: `test plugin ${id}`,
    apply(ctx) {
      for (const [event, handlers] of Object.entries(taps) as [HookEvent, HookHandler | HookHandler[]][]) {
        for (const handler of Array.isArray(handlers) ? handlers : [handlers]) ctx.tap(event, handler);
      }
    },
    ...fields,
  };
}

/** An echo tool that logs `start:<text>` and `end:<text>`; read-only unless `mutating`. */
export function recordingTool(
  name: string,
  options: { mutating?: boolean; run?: (text: string, signal: AbortSignal) => Promise<string> } = {},
) {
  const log: string[] = [];
  const tool = defineTool({
    name,
    description: `${name} test tool`,
    parameters: z.object({ text: z.string() }),
    ...(options.mutating !== undefined && { mutating: options.mutating }),
    execute: async ({ arguments: { text }, signal }) => {
      log.push(`start:${text}`);
      const out = options.run ? await options.run(text, signal) : text;
      log.push(`end:${text}`);
      return out;
    },
  });
  return { tool, log };
}

/** A {@link recordingTool} (mutating unless told) that asks the user first, or as `needsApproval` says. */
/**
 * A recording tool whose call never finishes (the page is closed while it runs); `running`
 * resolves once it has started.
 * @example
 * const act = hangingTool('act', { mutating: true });
 * await session.sendMessage('do it');
 * await act.running;
 */
export function hangingTool(name: string, options: { mutating?: boolean } = {}) {
  const started = deferred();
  const recorded = recordingTool(name, {
    ...options,
    run: () => (started.resolve(), new Promise<string>(() => {})),
  });
  return { ...recorded, running: started.promise };
}

export function guardedTool(
  name: string,
  options: {
    mutating?: boolean;
    needsApproval?: ToolHandler<{ text: string }>['needsApproval'];
    run?: (text: string, signal: AbortSignal) => Promise<string>;
  } = {},
) {
  const recorded = recordingTool(name, {
    mutating: options.mutating ?? true,
    ...(options.run && { run: options.run }),
  });
  const tool: ToolHandler<{ text: string }> = {
    ...recorded.tool,
    needsApproval: options.needsApproval ?? true,
  };
  return { tool, log: recorded.log };
}
