/**
 * The demo's server mode: a Vite plugin that mounts the agent server (`createAgentHandler`, in
 * `agent-host.ts`) at `/agent` on the dev server, for pages set to "Run on: the server". Its
 * sessions go to PostgreSQL: PGlite in a local data folder by default (nothing to install), or
 * the server at `DATABASE_URL`. The database opens in the background once the dev server
 * listens (a request waits for that start), so starting `npm start` is no slower for it.
 *
 * Who may call it: a request must carry the dev server's per-start token (as the model proxy
 * does) and name its user in `DEMO_USER_HEADER`, a random id each browser makes once and keeps
 * in `localStorage`. The id keeps one browser's sessions apart from another's; it is a demo's
 * notion of a user, not a login. A request without both is answered 401 before the database is
 * opened.
 *
 * The host module is loaded through the dev server's module loader (`ssrLoadModule`), which
 * applies the demo's aliases: the library's entries and the demo's parts resolve to the sources,
 * with one copy of each for the handler and the agents.
 * @module
 */
import { fileURLToPath } from 'node:url';
import type { Plugin, ViteDevServer } from 'vite';
import type { AgentHost, AgentHostOptions } from './agent-host.js';
import { DEMO_USER_HEADER, DEMO_USER_ID } from '../src/settings/demo-user.js';
import { carriesToken } from './page-token.js';
import type { ServerModel } from './server-model.js';
import { mountWebHandlerUnder } from './web-middleware.js';

/** Where the agent server is mounted (the page's `RemoteAgent` url). */
export const AGENT_SERVER_PATH = '/agent';

/** The default data folder of PGlite: `.demo-data/pglite` in the repository (git-ignored). */
export const DEFAULT_DATA_DIR = fileURLToPath(new URL('../../.demo-data/pglite', import.meta.url));

/** What the plugin is started with. */
export interface AgentServerSettings {
  /** The dev server's per-start token (the page gets it; requests must carry it). */
  token: string;
  /** `DATABASE_URL`, when set. */
  databaseUrl: string | undefined;
  /** PGlite's data folder (`DEMO_DATA_DIR`, else {@link DEFAULT_DATA_DIR}). */
  dataDir: string;
  /** The server's model, when `npm start` has a key: the agents use it directly. */
  model: ServerModel | null;
}

/**
 * The settings from `npm start`'s environment: `DATABASE_URL`, `DEMO_DATA_DIR`.
 * @example
 * agentServerFromEnv(process.env, token, serverModelFromEnv(process.env));
 */
export function agentServerFromEnv(
  env: Record<string, string | undefined>,
  token: string,
  model: ServerModel | null,
): AgentServerSettings {
  return {
    token,
    databaseUrl: env['DATABASE_URL']?.trim() || undefined,
    dataDir: env['DEMO_DATA_DIR']?.trim() || DEFAULT_DATA_DIR,
    model,
  };
}

/**
 * The user a request is from: its `DEMO_USER_HEADER` id, when it carries `token`; else `null`.
 * @example
 * demoUser(request, token); // { userId: 'user-…' } or null
 */
export function demoUser(request: Request, token: string): { userId: string } | null {
  if (!carriesToken(request, token)) return null;
  const id = request.headers.get(DEMO_USER_HEADER) ?? '';
  return DEMO_USER_ID.test(id) ? { userId: id } : null;
}

const HOST_MODULE = fileURLToPath(new URL('./agent-host.ts', import.meta.url));

async function startHost(server: ViteDevServer, settings: AgentServerSettings): Promise<AgentHost> {
  const host = (await server.ssrLoadModule(HOST_MODULE)) as typeof import('./agent-host.js');
  const options: AgentHostOptions = {
    authorize: (request) => demoUser(request, settings.token),
    dataDir: settings.dataDir,
    ...(settings.databaseUrl && { databaseUrl: settings.databaseUrl }),
    model: settings.model && {
      upstream: settings.model.proxy.upstream,
      apiKey: settings.model.proxy.apiKey,
      models: settings.model.proxy.models,
    },
  };
  return host.startAgentHost(options);
}

/** A Vite plugin that mounts the agent server at {@link AGENT_SERVER_PATH} (`npm start` only). */
export function agentServerPlugin(settings: AgentServerSettings | null): Plugin {
  return {
    name: 'youyou-demo-agent-server',
    apply: 'serve',
    configureServer(server) {
      if (!settings) return;
      let started: Promise<AgentHost> | null = null;
      const host = () => {
        started ??= startHost(server, settings).then((running) => {
          server.config.logger.info(`  agent server: sessions in ${running.where}`);
          return running;
        });
        // A failed start is tried again by the next request (e.g. the data folder was locked).
        started.catch(() => (started = null));
        return started;
      };
      server.middlewares.use(
        mountWebHandlerUnder(AGENT_SERVER_PATH, async (request) => {
          if (!demoUser(request, settings.token)) {
            return Response.json(
              {
                error: {
                  code: 'UNAUTHORIZED',
                  message: 'reload the demo page: its token is not this server’s',
                },
              },
              { status: 401 },
            );
          }
          let running: AgentHost;
          try {
            running = await host();
          } catch (error) {
            server.config.logger.error(`agent server not started: ${String(error)}`);
            return Response.json(
              { error: { code: 'SERVER_BUSY', message: 'the demo server could not open its database' } },
              { status: 503 },
            );
          }
          return running.handler(request);
        }),
      );
      // Opened in the background once the dev server listens, so the first page in server mode
      // does not wait for the modules and the database (a request waits for the same start).
      server.httpServer?.once('listening', () => void host().catch(() => {}));
      server.httpServer?.once(
        'close',
        () => void started?.then((running) => running.close()).catch(() => {}),
      );
      server.config.logger.info(
        `  agent server: ${AGENT_SERVER_PATH} ("Run on: the server" in the settings)`,
      );
    },
  };
}
