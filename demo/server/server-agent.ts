/**
 * The agents of the demo server: one per open session (the handler asks for one each time it
 * opens a session), built from the demo's environment-neutral parts. The model is the scripted
 * offline one, plus the server's own model (an `OpenAIProvider` with the server's key) when
 * `npm start` has `OPENAI_API_KEY`. The tools are the ones that need no page: the calculator, the
 * clock and the notes (kept per user in the dev server's memory); the MCP tools and budget setting
 * of the page are not used here. Sessions go to PostgreSQL under the user's id as `namespace`.
 * @module
 */
import { AgentBuilder, type Agent, type ModelInfo, type SessionLock } from 'youyou-agent';
import { OpenAIProvider } from 'youyou-agent/openai';
import {
  PostgresMemoryStorage,
  PostgresSessionLock,
  PostgresSessionStorage,
  type SqlClient,
} from 'youyou-agent/postgres';
import { OFFLINE_MODEL_ID, OfflineModelProvider } from '../src/model/offline-model.js';
import { calculatorTool } from '../src/parts/calculator-tool.js';
import { clockTool } from '../src/parts/clock-tool.js';
import { createHookActivityPlugin } from '../src/parts/hook-activity-plugin.js';
import { createNotesTool } from '../src/parts/notes-tool.js';
import { stepwiseSkill } from '../src/parts/stepwise-skill.js';

/** The tools a server-side agent has (the page's MCP tools are not among them). */
export const SERVER_TOOL_NAMES = ['calculator', 'clock', 'notes'] as const;

/** The server's own model: the upstream, the key and the models it may use. */
export interface ServerKeyModel {
  upstream: string;
  apiKey: string;
  models: readonly string[];
}

const SYSTEM_INSTRUCTIONS = [
  'You are the assistant of the YouYou Agent demo, a chat whose agent runs on the demo server.',
  'Use the calculator for arithmetic, the clock for dates and times, and the notes tool when the user asks to keep, list or clear notes. Answer briefly.',
];

/** Each user's notes, while the dev server runs. */
class NotesByUser {
  readonly #notes = new Map<string, string[]>();

  storeFor(userId: string) {
    return {
      read: () => [...(this.#notes.get(userId) ?? [])],
      write: (notes: readonly string[]) => void this.#notes.set(userId, [...notes]),
    };
  }
}

/**
 * The handler's `agent` factory over `sql`: a fresh agent per open session, sharing one lock and
 * one memory storage (one holder: this dev server), with the user's sessions and memories apart.
 * @example
 * createAgentHandler({ agent: serverAgentFactory({ sql, model: null }), authorize });
 */
export function serverAgentFactory(options: {
  sql: SqlClient;
  model: ServerKeyModel | null;
}): (scope: { userId: string }) => Promise<Agent> {
  const { sql, model } = options;
  const lock: SessionLock = new PostgresSessionLock({ sql, migrate: false });
  const memories = new PostgresMemoryStorage({ sql, migrate: false });
  const notes = new NotesByUser();
  const keyModels = (model?.models ?? []).map((id): ModelInfo => ({
    id,
    displayName: id,
    contextWindow: 128_000,
    capabilities: { toolUse: true, vision: false, streaming: true },
  }));
  return async ({ userId }) => {
    let builder = new AgentBuilder({
      defaultModel: OFFLINE_MODEL_ID,
      systemInstructions: SYSTEM_INSTRUCTIONS,
      memory: { namespace: `demo:${userId}` },
      retry: { maxRetries: 3, initialDelayMs: 1_000, maxDelayMs: 10_000 },
    }).registerModelProvider(new OfflineModelProvider());
    if (model && keyModels.length > 0) {
      builder = builder.registerModelProvider(
        new OpenAIProvider({ baseURL: model.upstream, apiKey: model.apiKey, models: keyModels }),
      );
    }
    return (
      builder
        .registerTool(calculatorTool)
        .registerTool(clockTool)
        .registerTool(createNotesTool(notes.storeFor(userId)))
        .registerSkill(stepwiseSkill)
        // Its hooks run here; the page's activity panel shows only an in-page agent's.
        .registerPlugin(createHookActivityPlugin().plugin)
        .registerSessionStorage(new PostgresSessionStorage({ sql, migrate: false, namespace: userId }))
        .registerMemoryStorage(memories)
        .registerSessionLock(lock)
        .build()
    );
  };
}
