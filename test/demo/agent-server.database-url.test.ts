/**
 * The demo's server mode on `DATABASE_URL`: with it set, the dev server keeps its sessions on that
 * PostgreSQL server (the test run's real one, a database of this file's own) instead of PGlite.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createServer, type ViteDevServer } from 'vite';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { RemoteAgent } from '../../src/remote.js';
import { DEMO_USER_HEADER } from '../../demo/src/settings/demo-user.js';
import { useDatabase } from '../postgres/support/server.js';

const DEMO_CONFIG = fileURLToPath(new URL('../../demo/vite.config.ts', import.meta.url));
const ENV = ['OPENAI_API_KEY', 'DATABASE_URL', 'DEMO_DATA_DIR', 'DEMO_MCP_PORT'] as const;
const saved = new Map(ENV.map((name) => [name, process.env[name]]));
const database = useDatabase();

let vite: ViteDevServer;
let origin: string;
let token: string;
let unusedDataDir: string;

beforeAll(async () => {
  const server = inject('postgres');
  unusedDataDir = await mkdtemp(join(tmpdir(), 'youyou-demo-unused-'));
  delete process.env['OPENAI_API_KEY'];
  process.env['DATABASE_URL'] =
    `postgres://${encodeURIComponent(server.user)}:${encodeURIComponent(server.password)}@${server.host}:${server.port}/${database.name}`;
  process.env['DEMO_DATA_DIR'] = unusedDataDir;
  process.env['DEMO_MCP_PORT'] = '0';
  vite = await createServer({
    configFile: DEMO_CONFIG,
    logLevel: 'silent',
    server: { port: 0, strictPort: false, hmr: false, ws: false },
  });
  await vite.listen();
  origin = vite.resolvedUrls!.local[0]!.replace(/\/$/, '');
  token = (
    JSON.parse(String(vite.config.define?.['__DEMO_ENDPOINT_DEFAULTS__'])) as {
      agentServer: { token: string };
    }
  ).agentServer.token;
}, 120_000);

afterAll(async () => {
  for (const [name, value] of saved) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  await vite?.close();
  await rm(unusedDataDir, { recursive: true, force: true });
});

describe("the demo's agent server on DATABASE_URL", () => {
  it('stores the sessions on that server, not in a PGlite folder', async () => {
    const agent = new RemoteAgent({
      url: `${origin}/agent`,
      headers: { authorization: `Bearer ${token}`, [DEMO_USER_HEADER]: 'user-erin-0005' },
    });
    const session = await agent.newSession({ modelId: 'scripted-offline' });
    expect((await (await session.sendMessage('what is 6 * 7?')).result).status).toBe('completed');
    await session.close();

    const pool = database.pool();
    const { rows } = await pool.query<{ namespace: string; id: string; events: number }>(
      `SELECT namespace, id, event_count AS events FROM youyou.sessions`,
    );
    // The browser's user id is the session's namespace.
    expect(rows).toEqual([{ namespace: 'user-erin-0005', id: session.id, events: expect.any(Number) }]);
    expect(rows[0]!.events).toBeGreaterThan(2);
    expect(await readdir(unusedDataDir)).toEqual([]);
  }, 120_000);
});
