/**
 * `npm start`'s dev server (the demo's own Vite config) on a free port of 127.0.0.1, with the
 * environment it reads when its config loads set for it, and restored by `close()`.
 * @module
 */
import { fileURLToPath } from 'node:url';
import { createServer, type ViteDevServer } from 'vite';

const DEMO_CONFIG = fileURLToPath(new URL('../../../demo/vite.config.ts', import.meta.url));

/** A running dev server of the demo. */
export interface DemoDevServer {
  /** e.g. `http://127.0.0.1:41234` */
  readonly origin: string;
  readonly vite: ViteDevServer;
  /** The agent server's token the page is given (the dev server's defines), `null` without one. */
  readonly token: string | null;
  /** Stops the server and puts the environment back as it was. */
  close(): Promise<void>;
}

/**
 * Starts the dev server with `env` in `process.env` (`undefined` removes a variable) and
 * `DEMO_MCP_PORT=0`. `warm` transforms the page's modules before any test's clock runs; `logLevel`
 * is Vite's (default `'warn'`).
 */
export async function startDemoDevServer(
  env: Record<string, string | undefined>,
  { warm = false, logLevel = 'warn' }: { warm?: boolean; logLevel?: 'warn' | 'silent' } = {},
): Promise<DemoDevServer> {
  const all = { DEMO_MCP_PORT: '0', ...env };
  const saved = Object.entries(all).map(([name]) => [name, process.env[name]] as const);
  const restore = () => {
    for (const [name, value] of saved) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  };
  for (const [name, value] of Object.entries(all)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  let vite: ViteDevServer | undefined;
  try {
    vite = await createServer({
      configFile: DEMO_CONFIG,
      logLevel,
      server: { port: 0, strictPort: false, hmr: false },
    });
    await vite.listen();
    const origin = vite.resolvedUrls!.local[0]!.replace(/\/$/, '');
    if (warm) await vite.warmupRequest('/src/main.ts');
    const defaults = JSON.parse(String(vite.config.define?.['__DEMO_ENDPOINT_DEFAULTS__'] ?? '{}')) as {
      agentServer?: { token: string };
    };
    const server = vite;
    return {
      origin,
      vite: server,
      token: defaults.agentServer?.token ?? null,
      async close() {
        await server.close();
        restore();
      },
    };
  } catch (error) {
    await vite?.close();
    restore();
    throw error;
  }
}
