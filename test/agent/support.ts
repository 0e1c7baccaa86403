/** Shared set-up for end-to-end tests through the public API. */
import * as z from 'zod/mini';
import { lastValueFrom, toArray } from 'rxjs';
import {
  AgentBuilder,
  defineTool,
  InMemorySessionStorage,
  type AgentConfig,
  type AgentEvent,
  type RunningTurn,
  type SessionStorage,
  type ToolHandler,
} from '../../src/index.js';
import { ScriptedModelProvider, SCRIPTED_MODEL, type ScriptStep } from '../../src/testing/index.js';

export const MODEL = SCRIPTED_MODEL.id;

export interface TestAgentOptions {
  script?: ScriptStep[];
  tools?: ToolHandler[];
  config?: Partial<AgentConfig>;
  storage?: SessionStorage | null;
}

/** An agent on a scripted provider with in-memory storage. */
export async function createTestAgent(options: TestAgentOptions = {}) {
  const provider = new ScriptedModelProvider({ script: options.script ?? [] });
  const storage = options.storage === undefined ? new InMemorySessionStorage() : options.storage;
  let builder = new AgentBuilder({ defaultModel: MODEL, ...options.config }).registerModelProvider(provider);
  for (const tool of options.tools ?? []) builder = builder.registerTool(tool);
  if (storage) builder = builder.registerSessionStorage(storage);
  const agent = await builder.build();
  return { agent, provider, storage };
}

/** All events of a turn (replayed), once it has ended. */
export function eventsOf(turn: RunningTurn): Promise<AgentEvent[]> {
  return lastValueFrom(turn.events.pipe(toArray()));
}

/** Payload types, in order. */
export const types = (events: AgentEvent[]) => events.map((e) => e.payload.type);

/** A deferred promise: `release()` resolves it. */
export function gate() {
  let release!: () => void;
  const promise = new Promise<void>((r) => (release = r));
  return { promise, release };
}

/** An echo tool that records its calls; read-only unless `mutating`. */
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
