/**
 * The library side of the peer bench: `AgentBuilder` + `OpenAIProvider` + in-memory storage + the
 * same trivial tool, imported from the built package the way an app gets it (`youyou-agent`,
 * resolved through its `exports`; see `bench/peer/build.ts`). A turn is `sendMessage`, reading the text
 * deltas and tool results from `turn.events`, and awaiting `turn.result`.
 * @module
 */
import * as z from 'zod/mini';
import { API_KEY, TOOL_DESCRIPTION, type CreateClient, type OtelMode } from './client.js';
import { modelIdOf, TOOL_NAME, toolOutput } from './script.js';

type Root = typeof import('../../../src/index.js');

/** A variable, so the type checker does not look for the built package (types come from `src/`). */
const PACKAGE: string = 'youyou-agent';

const root = (await import(PACKAGE)) as Root;

/** The file `youyou-agent` resolved to: the bench checks that it is the freshly built copy. */
export const resolvedPackage = (): string => import.meta.resolve(PACKAGE);

/** The options of `OpenAIProvider` that the bench uses. */
type ProviderClass = new (options: {
  baseURL: string;
  apiKey: string;
  models: import('../../../src/index.js').ModelInfo[];
}) => import('../../../src/index.js').ModelProvider;

/** `OpenAIProvider` from the root entry, or from `youyou-agent/openai` once it lives there. */
const OpenAIProvider = ((root as unknown as { OpenAIProvider?: ProviderClass }).OpenAIProvider ??
  ((await import(`${PACKAGE}/openai`)) as { OpenAIProvider: ProviderClass })
    .OpenAIProvider) satisfies ProviderClass;

let conversationSeen = 'conversation' in root.Session.prototype;

/**
 * Whether this build has `session.conversation` (the bench reports "n/a" otherwise): on the
 * `Session` prototype (a getter), or on a session this process opened (an instance field).
 */
export const hasConversation = (): boolean => conversationSeen;

/** The least of `session.conversation` the bench uses: an observable. */
interface Subscribable {
  subscribe(next: (value: unknown) => void): { unsubscribe(): void };
}

const lookup = root.defineTool({
  name: TOOL_NAME,
  description: TOOL_DESCRIPTION,
  parameters: z.object({ key: z.string() }),
  execute: async ({ arguments: { key } }) => toolOutput(key),
});

/** The plugins of the `--otel` mode: none, `otelPlugin()` on the global (no-op) tracer, or on an SDK tracer. */
async function otelPlugins(mode: OtelMode): Promise<import('../../../src/index.js').Plugin[]> {
  if (mode === 'none') return [];
  const { otelPlugin } = (await import(`${PACKAGE}/otel`)) as typeof import('../../../src/otel.js');
  if (mode === 'noop') return [otelPlugin()];
  const SDK: string = '@opentelemetry/sdk-trace-base';
  const sdk = (await import(SDK)) as typeof import('@opentelemetry/sdk-trace-base');
  const provider = new sdk.BasicTracerProvider({
    spanProcessors: [new sdk.SimpleSpanProcessor(new sdk.InMemorySpanExporter())],
  });
  return [otelPlugin({ tracer: provider.getTracer('bench') })];
}

export const createClient: CreateClient = ({ baseURL, scenario, conversation, otel }) => {
  const model = modelIdOf(scenario);
  let agent: InstanceType<Root['Agent']>;
  let session: InstanceType<Root['Session']>;
  return {
    async setup() {
      const provider = new OpenAIProvider({
        baseURL,
        apiKey: API_KEY,
        models: [
          {
            id: model,
            displayName: model,
            // Large enough that no scenario compacts: compaction is not what is measured.
            contextWindow: 10_000_000,
            capabilities: { toolUse: true, vision: false, streaming: true },
          },
        ],
      });
      let builder = new root.AgentBuilder({ defaultModel: model })
        .registerModelProvider(provider)
        .registerTool(lookup)
        .registerSessionStorage(new root.InMemorySessionStorage());
      for (const plugin of await otelPlugins(otel)) builder = builder.registerPlugin(plugin);
      agent = await builder.build();
      session = await agent.newSession();
      conversationSeen ||= 'conversation' in session;
      if (conversation && !conversationSeen) throw new Error('this build has no session.conversation');
    },
    async turn(text) {
      let latest: unknown;
      const watching = conversation
        ? (session as unknown as { conversation: Subscribable }).conversation.subscribe((value) => {
            latest = value;
          })
        : undefined;
      const running = await session.sendMessage(text);
      let answer = '';
      let toolCalls = 0;
      running.events.subscribe(({ payload }) => {
        if (payload.type === 'text_delta') answer += payload.text;
        else if (payload.type === 'tool_call_end') toolCalls++;
      });
      const result = await running.result;
      watching?.unsubscribe();
      if (result.status !== 'completed') {
        throw new Error(`turn ${result.status}: ${result.error?.code} ${result.error?.message}`);
      }
      if (conversation && latest === undefined) throw new Error('session.conversation emitted nothing');
      return { answer, toolCalls };
    },
    async teardown() {
      await session.close();
      await agent.shutdown();
    },
  };
};
