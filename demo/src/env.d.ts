/**
 * Endpoint settings from the environment of `npm start` (`OPENAI_BASE_URL`, `OPENAI_API_KEY`,
 * `OPENAI_MODEL`), put in place by `demo/vite.config.ts`; empty in a build.
 */
declare const __DEMO_ENDPOINT_DEFAULTS__: {
  baseURL?: string;
  apiKey?: string;
  model?: string;
  /** The demo MCP server that `npm start` runs. */
  mcpServers?: string;
};
