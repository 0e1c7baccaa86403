/**
 * Builds the demo's agent: the offline model always, an `OpenAIProvider` when an endpoint is
 * set, the three demo tools, the tools of the MCP servers in the settings, the demo skill and
 * plugin, and IndexedDB for sessions and memories. Rebuilt whenever the settings change (an agent's providers are fixed at build).
 * @module
 */
import {
  AgentBuilder,
  type IndexedDbMemoryStorage,
  type IndexedDbSessionStorage,
  type InspectionObserver,
  type ModelInfo,
} from 'youyou-agent';
import { OpenAIProvider } from 'youyou-agent/openai';
import { OFFLINE_MODEL_ID, OfflineModelProvider } from '../model/offline-model.js';
import { calculatorTool } from '../parts/calculator-tool.js';
import { clockTool } from '../parts/clock-tool.js';
import { createHookActivityPlugin, type HookActivityPlugin } from '../parts/hook-activity-plugin.js';
import { mcpToolSources } from '../parts/mcp-tool-sources.js';
import { notesTool } from '../parts/notes-tool.js';
import { stepwiseSkill } from '../parts/stepwise-skill.js';
import { endpointAccess, hasEndpoint, type EndpointSettings } from '../settings/settings.js';
import type { ChatAgent, SessionDirectory } from './chat-agent.js';

/** What the demo builds its agent from. */
export interface DemoAgentOptions {
  settings: EndpointSettings;
  /** Models of stored sessions to serve too (through the endpoint), so they can be resumed. */
  extraModels: readonly string[];
  sessions: IndexedDbSessionStorage;
  memories: IndexedDbMemoryStorage;
  inspect: InspectionObserver | null;
}

/** A built demo agent. */
export interface DemoAgent {
  readonly agent: ChatAgent;
  /** Where the sessions are listed, searched and deleted. */
  readonly sessions: SessionDirectory;
  /** Where the agent runs. */
  readonly runsOn: 'browser' | 'server';
  /** The in-page agent's plugin (its activity panel); `null` on the server, whose hooks run there. */
  readonly hooks: HookActivityPlugin | null;
  /** The model of new sessions. */
  readonly defaultModel: string;
  /** Every model this agent serves. */
  readonly models: ReadonlyMap<string, ModelInfo>;
}

const SYSTEM_INSTRUCTIONS = [
  'You are the assistant of the YouYou Agent demo, a chat running entirely in the browser.',
  'Use the calculator for arithmetic, the clock for dates and times, and the notes tool when the user asks to keep, list or clear notes. Answer briefly.',
];

export async function buildDemoAgent(options: DemoAgentOptions): Promise<DemoAgent> {
  const { settings } = options;
  const offline = new OfflineModelProvider();
  const hooks = createHookActivityPlugin();
  const endpointModels = [
    ...new Set([...(hasEndpoint(settings) ? [settings.model] : []), ...options.extraModels]),
  ]
    .filter((id) => id !== OFFLINE_MODEL_ID)
    .map((id): ModelInfo => ({
      id,
      displayName: id,
      contextWindow: settings.contextWindow,
      capabilities: { toolUse: true, vision: false, streaming: true },
    }));
  const defaultModel = hasEndpoint(settings) ? settings.model : OFFLINE_MODEL_ID;

  let builder = new AgentBuilder({
    defaultModel,
    systemInstructions: SYSTEM_INSTRUCTIONS,
    memory: { namespace: 'demo' },
    retry: { maxRetries: 3, initialDelayMs: 1_000, maxDelayMs: 10_000 },
    ...(options.inspect && { inspect: options.inspect }),
    // Checked before every request; the status bar shows the session's spending against it.
    ...(settings.sessionBudgetUsd > 0 && { budget: { maxCostPerSession: settings.sessionBudgetUsd } }),
  }).registerModelProvider(offline);
  if (endpointModels.length > 0) {
    // The settings' endpoint, or the dev server's proxy with this page's token.
    const access = endpointAccess(settings);
    builder = builder.registerModelProvider(
      new OpenAIProvider({
        ...(access.baseURL && { baseURL: access.baseURL }),
        // A local server that needs no key gets no Authorization header. OpenAI's own API (no base
        // URL: a session resumed from an endpoint no longer set) gets a placeholder, and its 401
        // shows in the chat.
        ...((access.apiKey || !access.baseURL) && { apiKey: access.apiKey || 'no-key' }),
        dangerouslyAllowBrowser: true,
        models: endpointModels,
      }),
    );
  }
  for (const source of mcpToolSources(settings.mcpServers)) builder = builder.registerToolSource(source);
  const agent = await builder
    .registerTool(calculatorTool)
    .registerTool(clockTool)
    .registerTool(notesTool)
    .registerSkill(stepwiseSkill)
    .registerPlugin(hooks.plugin)
    .registerSessionStorage(options.sessions)
    .registerMemoryStorage(options.memories)
    .build();
  const models = new Map([...offline.models, ...endpointModels].map((m) => [m.id, m]));
  return { agent, sessions: options.sessions, runsOn: 'browser', hooks, defaultModel, models };
}
