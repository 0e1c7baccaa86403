/**
 * The demo's endpoint settings: any OpenAI-compatible server. Kept in `localStorage` only — the
 * key goes to the endpoint in the `Authorization` header and nowhere else (not into sessions,
 * events or memories). An empty base URL means "no endpoint": the scripted offline model runs.
 * When `npm start` was given a key, "the server's model" goes through the dev server instead, and
 * the key stays there.
 * "Run on" chooses where the agent runs: in this page, or (`npm start` only) on the demo server.
 * @module
 */

/** The dev server's model proxy, when `npm start` has one: its models and this page's token. */
export interface ServerModel {
  readonly models: readonly string[];
  readonly token: string;
}

/** The server's model of the dev server that served this page, or `null`. */
export function serverModel(): ServerModel | null {
  return __DEMO_ENDPOINT_DEFAULTS__.serverModel ?? null;
}

/** The dev server's agent server (server mode), when this page came from `npm start`: its token. */
export function agentServer(): { token: string } | null {
  return __DEMO_ENDPOINT_DEFAULTS__.agentServer ?? null;
}

/** Where the page's provider sends its requests in server mode (the proxy is at `…/chat/completions`). */
export const SERVER_MODEL_BASE_PATH = '/agent/v1';

/** What the settings dialog edits. */
export interface EndpointSettings {
  /** e.g. `https://api.openai.com/v1` or `http://127.0.0.1:11434/v1`; `''` = offline model. */
  baseURL: string;
  apiKey: string;
  /** The model id the endpoint serves, e.g. `gpt-4o-mini`. */
  model: string;
  /** The model's context window in tokens (for the context meter and compaction). */
  contextWindow: number;
  /** MCP servers' Streamable HTTP URLs, one per line; their tools join the agent's. */
  mcpServers: string;
  /** USD the whole session may cost (`AgentConfig.budget.maxCostPerSession`); `0` for no budget. */
  sessionBudgetUsd: number;
  /** Use the server's model (when the dev server has one) instead of `baseURL` and `apiKey`. */
  useServerModel: boolean;
  /** Where the agent runs: in this page, or on the demo server (`npm start` only). */
  runOn: 'browser' | 'server';
}

const SETTINGS_KEY = 'youyou-demo:endpoint';
const DEFAULT_CONTEXT_WINDOW = 128_000;

/** The settings in `localStorage`, else those `npm start` was given in its environment. */
export function loadEndpointSettings(storage: Storage = localStorage): EndpointSettings {
  const env = __DEMO_ENDPOINT_DEFAULTS__;
  const server = serverModel();
  const fallback: EndpointSettings = {
    baseURL: env.baseURL ?? '',
    apiKey: env.apiKey ?? '',
    model: server?.models[0] ?? env.model ?? '',
    contextWindow: DEFAULT_CONTEXT_WINDOW,
    mcpServers: env.mcpServers ?? '',
    sessionBudgetUsd: 0,
    useServerModel: server !== null,
    runOn: 'browser',
  };
  const stored = readJson(storage, SETTINGS_KEY);
  if (stored === null) return fallback;
  return {
    baseURL: stringOr(stored['baseURL'], fallback.baseURL),
    apiKey: stringOr(stored['apiKey'], fallback.apiKey),
    model: stringOr(stored['model'], fallback.model),
    contextWindow: positiveIntOr(stored['contextWindow'], DEFAULT_CONTEXT_WINDOW),
    mcpServers: stringOr(stored['mcpServers'], fallback.mcpServers),
    sessionBudgetUsd: nonNegativeOr(stored['sessionBudgetUsd'], 0),
    useServerModel: stored['useServerModel'] === true,
    runOn: stored['runOn'] === 'server' ? 'server' : 'browser',
  };
}

/** Saves the settings (trimmed) and returns what was saved. */
export function saveEndpointSettings(
  settings: EndpointSettings,
  storage: Storage = localStorage,
): EndpointSettings {
  const saved: EndpointSettings = {
    baseURL: settings.baseURL.trim().replace(/\/+$/, ''),
    apiKey: settings.apiKey.trim(),
    model: settings.model.trim(),
    contextWindow: positiveIntOr(settings.contextWindow, DEFAULT_CONTEXT_WINDOW),
    mcpServers: settings.mcpServers.trim(),
    sessionBudgetUsd: nonNegativeOr(settings.sessionBudgetUsd, 0),
    useServerModel: settings.useServerModel,
    runOn: settings.runOn,
  };
  storage.setItem(SETTINGS_KEY, JSON.stringify(saved));
  return saved;
}

/** Whether the agent runs on the demo server: the settings choose it and this page's dev server has one. */
export function runsOnServer(settings: EndpointSettings): boolean {
  return settings.runOn === 'server' && agentServer() !== null;
}

/** The server's model when the settings choose it and this page's dev server has one. */
function chosenServerModel(settings: EndpointSettings): ServerModel | null {
  return settings.useServerModel ? serverModel() : null;
}

/** Whether the settings name an endpoint (else the offline model is used). */
export function hasEndpoint(settings: EndpointSettings): boolean {
  if (chosenServerModel(settings)) return settings.model !== '';
  return settings.baseURL !== '' && settings.model !== '';
}

/**
 * Where the endpoint's provider sends requests and the bearer token it sends: the settings' own,
 * or, for the server's model, the dev server's proxy and this page's token (no key).
 */
export function endpointAccess(settings: EndpointSettings): { baseURL: string; apiKey: string } {
  const server = chosenServerModel(settings);
  if (server) return { baseURL: new URL(SERVER_MODEL_BASE_PATH, location.origin).href, apiKey: server.token };
  return { baseURL: settings.baseURL, apiKey: settings.apiKey };
}

/** What the header names as the model's place. */
export function endpointLabel(settings: EndpointSettings): string {
  return chosenServerModel(settings) ? 'the demo server (key kept there)' : settings.baseURL;
}

function readJson(storage: Storage, key: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(storage.getItem(key) ?? 'null');
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

function stringOr(value: unknown, fallback: string): string {
  return typeof value === 'string' ? value : fallback;
}

function positiveIntOr(value: unknown, fallback: number): number {
  const n = typeof value === 'string' ? Number(value) : value;
  return typeof n === 'number' && Number.isInteger(n) && n > 0 ? n : fallback;
}

function nonNegativeOr(value: unknown, fallback: number): number {
  const n = typeof value === 'string' ? Number(value) : value;
  return typeof n === 'number' && Number.isFinite(n) && n >= 0 ? n : fallback;
}
