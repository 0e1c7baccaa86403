/**
 * `AgentBuilder.build()` through the public API: one test per build rule,
 * each asserting the rejection's code and that its message names the offender.
 */
import { describe, it, expect } from 'vitest';
import type { InspectionEvent } from 'xstate';
import * as zm from 'zod/mini';
import { z } from 'zod';
import {
  Agent,
  AgentBuilder,
  InMemoryMemoryStorage,
  InMemorySessionStorage,
  defineTool,
  type AgentConfig,
  type ChatEvent,
  type ModelInfo,
  type ModelProvider,
  type Plugin,
  type SkillDefinition,
  type ToolHandler,
} from '../src/index.js';
import { ScriptedModelProvider, SCRIPTED_MODEL, reply } from '../src/testing/index.js';
import { expectAgentError } from './support/errors.js';

// ─── Fixtures ────────────────────────────────────────────────────────────────────────────

function model(id: string): ModelInfo {
  return {
    id,
    displayName: id,
    contextWindow: 8_000,
    capabilities: { toolUse: true, vision: false, streaming: true },
  };
}

/** A provider that is never called: the build rules only read its `id` and `models`. */
function provider(id: string, modelIds: string[] = [`${id}-model`]): ModelProvider {
  return {
    id,
    models: modelIds.map(model),
    chat(): AsyncIterable<ChatEvent> {
      throw new Error(`provider '${id}' must not be called by build()`);
    },
  };
}

/** A builder with one provider serving `m1` and `m2`, and `config` (default model `m1`). */
function builderWith(config: Partial<AgentConfig> = {}): AgentBuilder<true> {
  return new AgentBuilder({ defaultModel: 'm1', ...config }).registerModelProvider(
    provider('p1', ['m1', 'm2']),
  );
}

function tool(name: string, parameters: ToolHandler['parameters'] = zm.object({})): ToolHandler {
  return { name, description: `tool ${name}`, parameters, execute: async () => 'ok' };
}

function skill(name: string, requiredTools?: string[]): SkillDefinition {
  return {
    name,
    description: `skill ${name}`,
    prompt: `do ${name}`,
    ...(requiredTools ? { requiredTools } : {}),
  };
}

/** A plugin that records its lifecycle (`initialize:id`, `apply:id`, `shutdown:id`) into `log`. */
function plugin(id: string, log: string[] = [], overrides: Partial<Plugin> = {}): Plugin {
  return {
    id,
    displayName: `Plugin ${id}`,
    description: `does ${id}`,
    initialize: () => void log.push(`initialize:${id}`),
    apply: (ctx) => {
      log.push(`apply:${id}`);
      ctx.tap('turn_start', () => undefined);
    },
    shutdown: () => void log.push(`shutdown:${id}`),
    ...overrides,
  };
}

/** Builds, asserts an {@link Agent} came back, and shuts it down. */
async function expectBuilds(builder: AgentBuilder<true>): Promise<void> {
  const agent = await builder.build();
  expect(agent).toBeInstanceOf(Agent);
  await agent.shutdown();
}

// ─── Rules ───────────────────────────────────────────────────────────────────────────────

describe('build() without a model provider', () => {
  it('rejects NO_MODEL_PROVIDER when a JS caller reaches build() on a builder with none', async () => {
    // The typestate forbids this call at compile time (builder.test-d.ts); a JS caller can still make it.
    const untyped = new AgentBuilder({ defaultModel: 'm1' }).registerTool(
      tool('t'),
    ) as unknown as AgentBuilder<true>;
    await expectAgentError(untyped.build(), 'NO_MODEL_PROVIDER', 'ModelProvider');
  });
});

describe('build() validates the config', () => {
  // [what is wrong, the config, what the message must name]
  const cases: [string, unknown, string[]][] = [
    ['a missing defaultModel', {}, ['config.defaultModel']],
    ['an empty defaultModel', { defaultModel: '' }, ['config.defaultModel']],
    [
      'a negative retry count',
      { defaultModel: 'm1', retry: { maxRetries: -1 } },
      ['config.retry.maxRetries'],
    ],
    [
      'a fractional retry count',
      { defaultModel: 'm1', retry: { maxRetries: 1.5 } },
      ['config.retry.maxRetries'],
    ],
    ['a string timeout', { defaultModel: 'm1', toolTimeoutMs: '1000' }, ['config.toolTimeoutMs']],
    [
      'a zero tool-call limit',
      { defaultModel: 'm1', maxToolCallsPerTurn: 0 },
      ['config.maxToolCallsPerTurn'],
    ],
    [
      'a threshold ratio above 1',
      { defaultModel: 'm1', compaction: { thresholdRatio: 1.5 } },
      ['config.compaction.thresholdRatio'],
    ],
    ['a memory config without namespace', { defaultModel: 'm1', memory: {} }, ['config.memory.namespace']],
    [
      'a non-string system instruction',
      { defaultModel: 'm1', systemInstructions: ['ok', 3] },
      ['config.systemInstructions.1'],
    ],
    [
      'a non-string environment value',
      { defaultModel: 'm1', environmentContext: { os: 1 } },
      ['config.environmentContext'],
    ],
    ['an unknown top-level key', { defaultModel: 'm1', temperature: 0.2 }, ['config', "'temperature'"]],
    [
      'an unknown nested key',
      { defaultModel: 'm1', compaction: { enabeld: false } },
      ['config.compaction', "'enabeld'"],
    ],
    ['a config that is not an object', 'gpt-4o', ['config']],
  ];
  for (const [what, config, named] of cases) {
    it(`rejects INVALID_INPUT naming the field for ${what}`, async () => {
      const builder = new AgentBuilder(config as AgentConfig).registerModelProvider(provider('p1', ['m1']));
      await expectAgentError(builder.build(), 'INVALID_INPUT', ...named);
    });
  }
});

describe('build() rejects duplicate names with NAME_CONFLICT', () => {
  it('names a tool registered twice', async () => {
    const builder = builderWith()
      .registerTool(tool('search'))
      .registerTool(tool('fetch'))
      .registerTool(tool('search'));
    await expectAgentError(builder.build(), 'NAME_CONFLICT', 'tool', "'search'");
  });

  it('names a skill registered twice', async () => {
    const builder = builderWith().registerSkill(skill('review')).registerSkill(skill('review'));
    await expectAgentError(builder.build(), 'NAME_CONFLICT', 'skill', "'review'");
  });

  it('names a plugin id registered twice, and initializes no plugin', async () => {
    const log: string[] = [];
    const builder = builderWith().registerPlugin(plugin('audit', log)).registerPlugin(plugin('audit', log));
    await expectAgentError(builder.build(), 'NAME_CONFLICT', 'plugin', "'audit'");
    expect(log).toEqual([]);
  });

  it('names a provider id registered twice', async () => {
    const builder = new AgentBuilder({ defaultModel: 'm1' })
      .registerModelProvider(provider('openai', ['m1']))
      .registerModelProvider(provider('openai', ['m2']));
    await expectAgentError(builder.build(), 'NAME_CONFLICT', 'provider', "'openai'");
  });

  it('names a model id served by two providers, and both providers', async () => {
    const builder = new AgentBuilder({ defaultModel: 'm1' })
      .registerModelProvider(provider('first', ['m1', 'shared']))
      .registerModelProvider(provider('second', ['shared']));
    await expectAgentError(builder.build(), 'NAME_CONFLICT', "'shared'", "'first'", "'second'");
  });

  it('names a model id listed twice by one provider', async () => {
    const builder = new AgentBuilder({ defaultModel: 'm1' }).registerModelProvider(
      provider('p', ['m1', 'm1']),
    );
    await expectAgentError(builder.build(), 'NAME_CONFLICT', "'m1'");
  });
});

describe('build() checks tool names against what OpenAI accepts (^[a-zA-Z0-9_-]{1,64}$)', () => {
  const rejected: [string, string][] = [
    ['a space', 'get weather'],
    ['a dot', 'weather.get'],
    ['65 characters', 'a'.repeat(65)],
    ['no characters', ''],
    ['a non-ASCII letter', 'météo'],
  ];
  for (const [what, name] of rejected) {
    it(`rejects INVALID_INPUT for a name with ${what}, naming the tool's position and field`, async () => {
      const builder = builderWith().registerTool(tool('fine')).registerTool(tool(name));
      await expectAgentError(builder.build(), 'INVALID_INPUT', 'tools[1].name');
    });
  }

  it('accepts letters, digits, `_` and `-` up to 64 characters', async () => {
    await expectBuilds(
      builderWith()
        .registerTool(tool('a'.repeat(64)))
        .registerTool(tool('Get_Weather-2')),
    );
  });
});

describe('build() checks that tool schemas can be sent to a model as JSON Schema', () => {
  const inexpressible: [string, ToolHandler['parameters']][] = [
    ['a zod/mini date', zm.object({ when: zm.date() })],
    ['a classic zod date', z.object({ when: z.date() })],
    ['a bigint', zm.object({ amount: zm.bigint() })],
    ['a Map', z.object({ table: z.map(z.string(), z.string()) })],
    ['a custom check', zm.object({ blob: zm.custom<Blob>((v) => v instanceof Blob) })],
  ];
  for (const [what, parameters] of inexpressible) {
    it(`rejects INVALID_INPUT for ${what}, naming the tool and its parameters`, async () => {
      const builder = builderWith().registerTool(tool('ok')).registerTool(tool('schedule', parameters));
      await expectAgentError(builder.build(), 'INVALID_INPUT', 'tools[1].parameters', "'schedule'");
    });
  }

  it('accepts a transform: the model writes its input side, which JSON Schema expresses', async () => {
    const parameters = z.object({ count: z.string().transform((s) => Number(s)) });
    await expectBuilds(
      builderWith().registerTool(
        defineTool({ name: 'count', description: 'd', parameters, execute: () => 'ok' }),
      ),
    );
  });

  it('rejects INVALID_INPUT naming the field when parameters is not a zod schema', async () => {
    const notZod = { type: 'object', properties: {} } as unknown as ToolHandler['parameters'];
    await expectAgentError(
      builderWith().registerTool(tool('raw', notZod)).build(),
      'INVALID_INPUT',
      'tools[0].parameters',
    );
  });
});

describe('build() checks skills', () => {
  it('rejects SKILL_DEPENDENCY_NOT_MET naming the skill and the missing tool', async () => {
    const builder = builderWith()
      .registerTool(tool('read_file'))
      .registerSkill(skill('refactor', ['read_file', 'write_file']));
    await expectAgentError(builder.build(), 'SKILL_DEPENDENCY_NOT_MET', "'refactor'", "'write_file'");
  });

  it('accepts a skill whose required tools are registered (in any order)', async () => {
    await expectBuilds(
      builderWith()
        .registerSkill(skill('refactor', ['read_file']))
        .registerTool(tool('read_file')),
    );
  });

  it('rejects INVALID_INPUT naming the field for a skill name that `/name` cannot invoke', async () => {
    await expectAgentError(
      builderWith().registerSkill(skill('code review')).build(),
      'INVALID_INPUT',
      'skills[0].name',
    );
  });
});

describe('build() checks models', () => {
  it('rejects INVALID_DEFAULT_MODEL naming a default model no provider serves', async () => {
    await expectAgentError(
      builderWith({ defaultModel: 'gpt-5' }).build(),
      'INVALID_DEFAULT_MODEL',
      "'gpt-5'",
    );
  });

  it('accepts a default model served by the second provider', async () => {
    await expectBuilds(
      new AgentBuilder({ defaultModel: 'm2' })
        .registerModelProvider(provider('a', ['m1']))
        .registerModelProvider(provider('b', ['m2'])),
    );
  });

  it('rejects INVALID_INPUT naming the field of a malformed model info', async () => {
    const broken = {
      ...provider('p'),
      models: [{ id: 'm1', displayName: 'M1' }],
    } as unknown as ModelProvider;
    await expectAgentError(
      new AgentBuilder({ defaultModel: 'm1' }).registerModelProvider(broken).build(),
      'INVALID_INPUT',
      'provider.models.0.contextWindow',
    );
  });

  it('rejects MODEL_NOT_SUPPORTED naming a memory extraction model no provider serves', async () => {
    const builder = builderWith({
      memory: { namespace: 'user', extractionModel: 'tiny-model' },
    }).registerMemoryStorage(new InMemoryMemoryStorage());
    await expectAgentError(builder.build(), 'MODEL_NOT_SUPPORTED', "'tiny-model'");
  });
});

describe('build() checks storages', () => {
  it('rejects STORAGE_DUPLICATE naming session storage registered twice', async () => {
    const builder = builderWith()
      .registerSessionStorage(new InMemorySessionStorage())
      .registerSessionStorage(new InMemorySessionStorage());
    await expectAgentError(builder.build(), 'STORAGE_DUPLICATE', 'session storage');
  });

  it('rejects STORAGE_DUPLICATE naming memory storage registered twice', async () => {
    const builder = builderWith()
      .registerMemoryStorage(new InMemoryMemoryStorage())
      .registerMemoryStorage(new InMemoryMemoryStorage());
    await expectAgentError(builder.build(), 'STORAGE_DUPLICATE', 'memory storage');
  });

  it('rejects INVALID_INPUT naming config.memory when no MemoryStorage is registered', async () => {
    await expectAgentError(
      builderWith({ memory: { namespace: 'user' } }).build(),
      'INVALID_INPUT',
      'config.memory',
      'MemoryStorage',
    );
  });

  it('rejects INVALID_INPUT for a registered session lock without acquire; null or a lock builds', async () => {
    await expectAgentError(
      builderWith()
        .registerSessionLock({} as never)
        .build(),
      'INVALID_INPUT',
      'sessionLock',
    );
    // Last call wins: a bad lock replaced by null builds.
    const agent = await builderWith()
      .registerSessionLock({} as never)
      .registerSessionLock(null)
      .build();
    await agent.shutdown();
    const locked = await builderWith()
      .registerSessionLock({ acquire: async () => null })
      .build();
    await locked.shutdown();
  });

  it('rejects INVALID_INPUT naming the missing method of a malformed session storage', async () => {
    const broken = { saveEvent: async () => {} } as unknown as InMemorySessionStorage;
    await expectAgentError(
      builderWith().registerSessionStorage(broken).build(),
      'INVALID_INPUT',
      'sessionStorage',
      'loadSession',
    );
  });
});

describe('build() initializes plugins', () => {
  it('rejects PLUGIN_INIT_FAILED naming the plugin whose initialize throws, and keeps its cause', async () => {
    const boom = new Error('license key missing');
    const builder = builderWith().registerPlugin(
      plugin('billing', [], {
        initialize: () => {
          throw boom;
        },
      }),
    );
    const error = await expectAgentError(
      builder.build(),
      'PLUGIN_INIT_FAILED',
      "'billing'",
      'license key missing',
    );
    expect(error.cause).toBe(boom);
    expect(error.source).toBe('plugin');
  });

  it('names a plugin whose initialize rejects asynchronously', async () => {
    const builder = builderWith().registerPlugin(
      plugin('slow', [], { initialize: async () => Promise.reject(new Error('no db')) }),
    );
    await expectAgentError(builder.build(), 'PLUGIN_INIT_FAILED', "'slow'", 'no db');
  });

  it('shuts the plugins initialized before the failing one down in reverse order, and applies none', async () => {
    const log: string[] = [];
    const builder = builderWith()
      .registerPlugin(plugin('a', log))
      .registerPlugin(plugin('b', log))
      .registerPlugin(
        plugin('c', log, {
          initialize: () => {
            log.push('initialize:c');
            throw new Error('c is broken');
          },
        }),
      )
      .registerPlugin(plugin('d', log));
    await expectAgentError(builder.build(), 'PLUGIN_INIT_FAILED', "'c'");
    // `apply` (where hooks are tapped) never ran, so no plugin's hook was registered; `d` was never
    // initialized and `c` failed, so neither owes a shutdown.
    expect(log).toEqual(['initialize:a', 'initialize:b', 'initialize:c', 'shutdown:b', 'shutdown:a']);
  });

  it('rejects PLUGIN_INIT_FAILED naming a plugin whose apply throws, after shutting every initialized plugin down', async () => {
    const log: string[] = [];
    const builder = builderWith()
      .registerPlugin(plugin('a', log))
      .registerPlugin(
        plugin('b', log, {
          apply: () => {
            log.push('apply:b');
            throw new Error('bad tap');
          },
        }),
      );
    await expectAgentError(builder.build(), 'PLUGIN_INIT_FAILED', "'b'", 'bad tap');
    expect(log).toEqual(['initialize:a', 'initialize:b', 'apply:a', 'apply:b', 'shutdown:b', 'shutdown:a']);
  });

  it('initializes no plugin when an earlier rule rejects the build', async () => {
    const log: string[] = [];
    const builder = builderWith({ defaultModel: 'unknown' }).registerPlugin(plugin('a', log));
    await expectAgentError(builder.build(), 'INVALID_DEFAULT_MODEL');
    expect(log).toEqual([]);
  });

  it('passes each plugin the config it was registered with', async () => {
    const seen: unknown[] = [];
    const agent = await builderWith()
      .registerPlugin(plugin('a', [], { initialize: (config) => void seen.push(config) }), { level: 'debug' })
      .registerPlugin(plugin('b', [], { initialize: (config) => void seen.push(config) }))
      .build();
    expect(seen).toEqual([{ level: 'debug' }, undefined]);
    await agent.shutdown();
  });
});

describe('build() never throws synchronously', () => {
  const failing: [string, () => AgentBuilder<true>][] = [
    ['no provider', () => new AgentBuilder({ defaultModel: 'm1' }) as unknown as AgentBuilder<true>],
    [
      'an undefined config',
      () =>
        new AgentBuilder(undefined as unknown as AgentConfig).registerModelProvider(provider('p', ['m1'])),
    ],
    [
      'a null provider',
      () => new AgentBuilder({ defaultModel: 'm1' }).registerModelProvider(null as unknown as ModelProvider),
    ],
    ['a null tool', () => builderWith().registerTool(null as unknown as ToolHandler)],
    ['a null skill', () => builderWith().registerSkill(null as unknown as SkillDefinition)],
    ['a null plugin', () => builderWith().registerPlugin(null as unknown as Plugin)],
    ['an invalid default model', () => builderWith({ defaultModel: 'nope' })],
  ];
  for (const [what, make] of failing) {
    it(`returns a promise rejecting with an AgentError for ${what}`, async () => {
      const builder = make();
      let promise: Promise<unknown> | undefined;
      let thrown: unknown = null;
      try {
        promise = builder.build();
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeNull();
      expect(promise).toBeInstanceOf(Promise);
      await expectAgentError(promise!);
    });
  }
});

describe('a successful build', () => {
  it('returns an Agent whose newSession() opens a session that runs a turn', async () => {
    const scripted = new ScriptedModelProvider({ script: [reply.text('Hello back')] });
    const agent = await new AgentBuilder({ defaultModel: SCRIPTED_MODEL.id })
      .registerModelProvider(scripted)
      .build();
    const session = await agent.newSession();
    expect(session.id).toEqual(expect.any(String));

    const turn = await session.sendMessage('Hello');
    const result = await turn.result;
    expect(result.status).toBe('completed');
    expect(session.messages.at(-1)).toEqual({
      type: 'assistant',
      content: [{ type: 'text', text: 'Hello back' }],
      status: 'complete',
    });
    expect(scripted.requests[0]?.model).toBe(SCRIPTED_MODEL.id);
    await session.close();
    await agent.shutdown();
  });

  it("gives config.inspect to the root actor, so it sees the Agent machine and the session's machine", async () => {
    const inspected: InspectionEvent[] = [];
    const agent = await new AgentBuilder({
      defaultModel: SCRIPTED_MODEL.id,
      inspect: (event) => inspected.push(event),
    })
      .registerModelProvider(new ScriptedModelProvider())
      .build();
    const session = await agent.newSession();
    const sessionActor = agent.actor.getSnapshot().children.session;
    expect(sessionActor).toBeDefined();
    const actors = new Set<unknown>(inspected.map((event) => event.actorRef));
    expect(actors.has(agent.actor)).toBe(true);
    expect(actors.has(sessionActor)).toBe(true);
    await session.close();
    await agent.shutdown();
  });

  it('accepts every kind of registration at once and initializes then applies each plugin once', async () => {
    const log: string[] = [];
    const agent = await new AgentBuilder({
      defaultModel: SCRIPTED_MODEL.id,
      memory: { namespace: 'user', extractionModel: SCRIPTED_MODEL.id },
    })
      .registerModelProvider(new ScriptedModelProvider())
      .registerTool(
        defineTool({
          name: 'lookup',
          description: 'd',
          parameters: z.object({ q: z.string() }),
          execute: () => 'ok',
        }),
      )
      .registerSkill(skill('research', ['lookup']))
      .registerPlugin(plugin('audit', log))
      .registerSessionStorage(new InMemorySessionStorage())
      .registerMemoryStorage(new InMemoryMemoryStorage())
      .build();
    expect(log).toEqual(['initialize:audit', 'apply:audit']);
    const session = await agent.newSession();
    await session.close();
    await agent.shutdown();
    expect(log).toEqual(['initialize:audit', 'apply:audit', 'shutdown:audit']);
  });
});
