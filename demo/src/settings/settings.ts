/**
 * The demo's endpoint settings: any OpenAI-compatible server. Kept in `localStorage` only — the
 * key goes to the endpoint in the `Authorization` header and nowhere else (not into sessions,
 * events or memories). An empty base URL means "no endpoint": the scripted offline model runs.
 * @module
 */

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
}

const SETTINGS_KEY = 'youyou-demo:endpoint';
const DEFAULT_CONTEXT_WINDOW = 128_000;

/** The settings in `localStorage`, else those `npm start` was given in its environment. */
export function loadEndpointSettings(storage: Storage = localStorage): EndpointSettings {
  const env = __DEMO_ENDPOINT_DEFAULTS__;
  const fallback: EndpointSettings = {
    baseURL: env.baseURL ?? '',
    apiKey: env.apiKey ?? '',
    model: env.model ?? '',
    contextWindow: DEFAULT_CONTEXT_WINDOW,
    mcpServers: env.mcpServers ?? '',
  };
  const stored = readJson(storage, SETTINGS_KEY);
  if (stored === null) return fallback;
  return {
    baseURL: stringOr(stored['baseURL'], fallback.baseURL),
    apiKey: stringOr(stored['apiKey'], fallback.apiKey),
    model: stringOr(stored['model'], fallback.model),
    contextWindow: positiveIntOr(stored['contextWindow'], DEFAULT_CONTEXT_WINDOW),
    mcpServers: stringOr(stored['mcpServers'], fallback.mcpServers),
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
  };
  storage.setItem(SETTINGS_KEY, JSON.stringify(saved));
  return saved;
}

/** Whether the settings name an endpoint (else the offline model is used). */
export function hasEndpoint(settings: EndpointSettings): boolean {
  return settings.baseURL !== '' && settings.model !== '';
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
