/**
 * The browser demo's own Vite config (`npm start` serves it, `npm run demo:build` builds it).
 * The demo imports the library as an app would (`youyou-agent`, `youyou-agent/openai`,
 * `youyou-agent/mcp`); the aliases point those names at this repository's sources, so no build of
 * the library is needed. `npm start` also starts the demo's MCP server (`DEMO_MCP_PORT`, default
 * 5174), which the demo's "MCP servers" setting names by default.
 */
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vite';
import { startDemoMcpServer } from './mcp-demo-server.js';
import { agentServerFromEnv, agentServerPlugin } from './server/agent-server.js';
import { makePageToken } from './server/page-token.js';
import { forPage, serverModelFromEnv, serverModelPlugin } from './server/server-model.js';

const source = (path: string) => fileURLToPath(new URL(`../src/${path}`, import.meta.url));

/**
 * With `OPENAI_API_KEY` set, `npm start` serves the model through its own proxy, and the key
 * stays in this process (see `server/server-model.ts`).
 */
const SERVER_MODEL = serverModelFromEnv(process.env);

/**
 * Server mode ("Run on: the server"): the agent server at `/agent`, on PGlite in
 * `.demo-data/pglite` (`DEMO_DATA_DIR`) or on `DATABASE_URL`, with the same per-start token as
 * the server's model (see `server/agent-server.ts`).
 */
const AGENT_SERVER = agentServerFromEnv(process.env, SERVER_MODEL?.token ?? makePageToken(), SERVER_MODEL);

/**
 * The endpoint settings that `OPENAI_BASE_URL` and `OPENAI_MODEL` pre-fill, or, with
 * `OPENAI_API_KEY`, the server's model (its models and the page's token; never the key). Only the
 * dev server (`npm start`) reads them: a build must never carry a key or a token into files that
 * may be published.
 */
function endpointDefaults(command: 'serve' | 'build'): Record<string, unknown> {
  if (command !== 'serve') return {};
  const defaults: Record<string, unknown> = {};
  const read = (name: string, key: string) => {
    const value = process.env[name];
    if (value) defaults[key] = value;
  };
  if (SERVER_MODEL) {
    defaults['serverModel'] = forPage(SERVER_MODEL);
  } else {
    read('OPENAI_BASE_URL', 'baseURL');
    read('OPENAI_MODEL', 'model');
  }
  defaults['mcpServers'] = `http://127.0.0.1:${MCP_PORT}/mcp`;
  defaults['agentServer'] = { token: AGENT_SERVER.token };
  return defaults;
}

const MCP_PORT = Number(process.env['DEMO_MCP_PORT'] ?? 5174);

/** Starts the demo's MCP server with the dev server, and stops it with it. */
function demoMcpServer(): Plugin {
  return {
    name: 'youyou-demo-mcp-server',
    apply: 'serve',
    async configureServer(server) {
      try {
        const mcp = await startDemoMcpServer({ port: MCP_PORT });
        server.config.logger.info(`  demo MCP server: ${mcp.url}`);
        server.httpServer?.once('close', () => void mcp.close());
      } catch (error) {
        server.config.logger.warn(`demo MCP server not started on port ${MCP_PORT}: ${String(error)}`);
      }
    },
  };
}

export default defineConfig(({ command }) => ({
  root: fileURLToPath(new URL('.', import.meta.url)),
  resolve: {
    alias: [
      { find: /^youyou-agent$/, replacement: source('index.ts') },
      { find: /^youyou-agent\/openai$/, replacement: source('openai.ts') },
      { find: /^youyou-agent\/mcp$/, replacement: source('mcp.ts') },
      { find: /^youyou-agent\/remote$/, replacement: source('remote.ts') },
      { find: /^youyou-agent\/server$/, replacement: source('server.ts') },
      { find: /^youyou-agent\/postgres$/, replacement: source('postgres.ts') },
    ],
  },
  plugins: [
    demoMcpServer(),
    // Before the agent server: the proxy's path is below `/agent`.
    serverModelPlugin(command === 'serve' ? SERVER_MODEL : null),
    agentServerPlugin(command === 'serve' ? AGENT_SERVER : null),
  ],
  define: { __DEMO_ENDPOINT_DEFAULTS__: JSON.stringify(endpointDefaults(command)) },
  server: { host: '127.0.0.1', port: 5173, strictPort: true },
  preview: { host: '127.0.0.1', port: 4173 },
  build: { target: 'es2022', outDir: 'dist', emptyOutDir: true, sourcemap: true },
}));
