/**
 * Endpoint settings from the environment of `npm start` (`OPENAI_BASE_URL`, `OPENAI_MODEL`; with
 * `OPENAI_API_KEY`, the server's model instead), put in place by `demo/vite.config.ts`; empty in a
 * build.
 */
declare const __DEMO_ENDPOINT_DEFAULTS__: {
  baseURL?: string;
  apiKey?: string;
  model?: string;
  /** The dev server's model proxy: the models it serves and this page's token (never the key). */
  serverModel?: { models: string[]; token: string };
  /** The agent server of `npm start` (server mode): this page's token. */
  agentServer?: { token: string };
  /** The demo MCP server that `npm start` runs. */
  mcpServers?: string;
};
