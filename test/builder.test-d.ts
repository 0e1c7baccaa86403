/**
 * Type tests (checked by `tsc` through vitest typecheck): the builder's typestate, `defineTool`'s
 * argument inference from either zod flavour, the `HookResult` constructors and the typed hook
 * payloads of `PluginContext.tap`.
 */
import { describe, it, expectTypeOf } from 'vitest';
import type { InspectionEvent } from 'xstate';
import * as zm from 'zod/mini';
import { z } from 'zod';
import {
  AgentBuilder,
  HookResult,
  defineTool,
  type Agent,
  type AgentConfig,
  type AgentConfigSchema,
  type ResolvedAgentConfig,
  type ChatRequest,
  type HookPayloadOf,
  type ModelProvider,
  type PluginContext,
  type TokenUsage,
  type ToolExecuteInput,
  type ToolHandler,
  type ToolOutput,
} from '../src/index.js';

declare const config: AgentConfig;
declare const provider: ModelProvider;
declare const tool: ToolHandler;
declare const ctx: PluginContext;

describe('AgentBuilder typestate', () => {
  it('has no callable build() before a model provider is registered', () => {
    const builder = new AgentBuilder(config);
    expectTypeOf(builder).toEqualTypeOf<AgentBuilder<false>>();
    // @ts-expect-error — build() requires AgentBuilder<true>: register a ModelProvider first.
    void builder.build();
    // Other registrations keep the builder without a provider.
    // @ts-expect-error — still no provider after registering a tool.
    void builder.registerTool(tool).build();
  });

  it('becomes AgentBuilder<true> after registerModelProvider, whose build() returns Promise<Agent>', () => {
    const withProvider = new AgentBuilder(config).registerModelProvider(provider);
    expectTypeOf(withProvider).toEqualTypeOf<AgentBuilder<true>>();
    expectTypeOf(withProvider.build).returns.toEqualTypeOf<Promise<Agent>>();
  });

  it('keeps HasProvider through the other register methods, in any order', () => {
    const before = new AgentBuilder(config).registerTool(tool).registerModelProvider(provider);
    expectTypeOf(before).toEqualTypeOf<AgentBuilder<true>>();
    const after = new AgentBuilder(config)
      .registerModelProvider(provider)
      .registerTool(tool)
      .registerPlugin({
        id: 'p',
        displayName: 'P',
        description: 'd',
        apply: () => {},
      });
    expectTypeOf(after).toEqualTypeOf<AgentBuilder<true>>();
    expectTypeOf(after.build()).resolves.toEqualTypeOf<Agent>();
  });

  it('rejects a config missing defaultModel or with an unknown key at compile time', () => {
    // @ts-expect-error — defaultModel is required.
    void new AgentBuilder({ systemInstructions: [] });
    // @ts-expect-error — unknown keys are not part of AgentConfig.
    void new AgentBuilder({ defaultModel: 'm', temperature: 0.2 });
  });
});

describe('AgentConfig', () => {
  it('agrees with AgentConfigSchema: every AgentConfig is a valid schema input and vice versa', () => {
    expectTypeOf<AgentConfig>().toExtend<zm.input<typeof AgentConfigSchema>>();
    expectTypeOf<zm.input<typeof AgentConfigSchema>>().toExtend<AgentConfig>();
  });

  it('resolves to a config whose defaulted fields are no longer optional', () => {
    expectTypeOf<ResolvedAgentConfig['toolTimeoutMs']>().toEqualTypeOf<number>();
    expectTypeOf<ResolvedAgentConfig['compaction']['thresholdRatio']>().toEqualTypeOf<number>();
    expectTypeOf<ResolvedAgentConfig['retry']['maxRetries']>().toEqualTypeOf<number>();
    expectTypeOf<ResolvedAgentConfig['systemInstructions']>().toEqualTypeOf<string[]>();
    expectTypeOf<ResolvedAgentConfig['memory']>().toEqualTypeOf<
      | {
          namespace: string;
          maxItems: number;
          checkpointInterval: number;
          extractionModel?: string | undefined;
          consolidateAbove: number;
        }
      | undefined
    >();
  });

  it('takes a function or an observer as inspect, and a record or a function as environmentContext', () => {
    expectTypeOf({ defaultModel: 'm', inspect: (_e: InspectionEvent) => {} }).toExtend<AgentConfig>();
    expectTypeOf({
      defaultModel: 'm',
      inspect: { next: (_e: InspectionEvent) => {} },
    }).toExtend<AgentConfig>();
    expectTypeOf({
      defaultModel: 'm',
      environmentContext: async () => ({ os: 'linux' }),
    }).toExtend<AgentConfig>();
    expectTypeOf({ defaultModel: 'm', environmentContext: { os: 1 } }).not.toExtend<AgentConfig>();
  });
});

describe('defineTool', () => {
  it('infers the argument type from a classic zod schema', () => {
    const weather = defineTool({
      name: 'get_weather',
      description: 'Weather of a city',
      parameters: z.object({ city: z.string(), days: z.number().optional() }),
      execute: async ({ arguments: args }) => {
        expectTypeOf(args).toEqualTypeOf<{ city: string; days?: number | undefined }>();
        return args.city;
      },
    });
    expectTypeOf(weather).toEqualTypeOf<ToolHandler<{ city: string; days?: number | undefined }>>();
  });

  it('infers the argument type from a zod/mini schema', () => {
    const search = defineTool({
      name: 'search',
      description: 'Search the docs',
      parameters: zm.object({ query: zm.string(), tags: zm.optional(zm.array(zm.string())) }),
      execute: ({ arguments: args }) => {
        expectTypeOf(args).toEqualTypeOf<{ query: string; tags?: string[] | undefined }>();
        return { content: args.query };
      },
    });
    expectTypeOf(search).toEqualTypeOf<ToolHandler<{ query: string; tags?: string[] | undefined }>>();
  });

  it("types arguments as the schema's output, after transforms", () => {
    const count = defineTool({
      name: 'count',
      description: 'd',
      parameters: z.object({ n: z.string().transform((s) => Number(s)) }),
      execute: ({ arguments: args }) => String(args.n + 1),
    });
    expectTypeOf(count).toEqualTypeOf<ToolHandler<{ n: number }>>();
  });

  it('gives execute the call context and accepts string or ToolOutput results, sync or async', () => {
    defineTool({
      name: 't',
      description: 'd',
      parameters: zm.object({}),
      execute: (input) => {
        expectTypeOf(input).toEqualTypeOf<ToolExecuteInput<Record<string, never>>>();
        expectTypeOf(input.signal).toEqualTypeOf<AbortSignal>();
        expectTypeOf(input.callId).toEqualTypeOf<string>();
        return 'done';
      },
    });
    expectTypeOf(tool.execute).returns.toEqualTypeOf<Promise<ToolOutput | string>>();
    defineTool({
      name: 't',
      description: 'd',
      parameters: zm.object({}),
      // @ts-expect-error — a tool must return a string or a ToolOutput.
      execute: () => 42,
    });
  });

  it('is assignable to the untyped ToolHandler that registerTool takes', () => {
    const typed = defineTool({
      name: 't',
      description: 'd',
      parameters: z.object({ a: z.string() }),
      execute: () => '',
    });
    expectTypeOf(typed).toExtend<ToolHandler>();
    expectTypeOf(new AgentBuilder(config).registerModelProvider(provider).registerTool(typed)).toEqualTypeOf<
      AgentBuilder<true>
    >();
  });
});

describe('HookResult constructors', () => {
  it('each return a HookResult', () => {
    expectTypeOf(HookResult.continue()).toEqualTypeOf<HookResult>();
    expectTypeOf(HookResult.continueWith({ any: 'data' })).toEqualTypeOf<HookResult>();
    expectTypeOf(HookResult.abort('reason')).toEqualTypeOf<HookResult>();
  });

  it('require a reason string for abort', () => {
    // @ts-expect-error — abort needs a reason.
    void HookResult.abort();
  });
});

describe('PluginContext.tap', () => {
  it("types pre_request's payload.data.request as ChatRequest", () => {
    ctx.tap('pre_request', (payload) => {
      expectTypeOf(payload.event).toEqualTypeOf<'pre_request'>();
      expectTypeOf(payload.data.request).toEqualTypeOf<ChatRequest>();
      expectTypeOf(payload.data.attempt).toEqualTypeOf<number>();
      return HookResult.continueWith({
        ...payload.data,
        request: { ...payload.data.request, model: 'other' },
      });
    });
  });

  it('types each event’s data per the hook table', () => {
    ctx.tap('turn_start', ({ data }) => {
      expectTypeOf(data).toEqualTypeOf<string[]>();
    });
    ctx.tap('turn_end', ({ data }) => {
      expectTypeOf(data.status).toEqualTypeOf<'completed' | 'cancelled' | 'failed'>();
      expectTypeOf(data.usage).toEqualTypeOf<TokenUsage>();
    });
    ctx.tap('after_tool_use', ({ data }) => {
      expectTypeOf(data.output).toEqualTypeOf<ToolOutput>();
    });
    expectTypeOf<HookPayloadOf<'session_end'>['data']['reason']>().toEqualTypeOf<'close' | 'shutdown'>();
  });

  it('refuses unknown events and handlers returning something other than a HookResult', () => {
    // @ts-expect-error — not a hook event.
    ctx.tap('before_request', () => undefined);
    // @ts-expect-error — a handler returns a HookResult or nothing.
    ctx.tap('turn_start', () => 'continue');
    // @ts-expect-error — turn_start's data is string[], it has no `request`.
    ctx.tap('turn_start', ({ data }) => void data.request);
  });
});
