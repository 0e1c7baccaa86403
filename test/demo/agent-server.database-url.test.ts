/**
 * The demo's server mode on `DATABASE_URL`: with it set, the dev server keeps its sessions on that
 * PostgreSQL server (the test run's real one, a database of this file's own) instead of PGlite.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { RemoteAgent } from '../../src/remote.js';
import { DEMO_USER_HEADER } from '../../demo/src/settings/demo-user.js';
import { startDemoDevServer, type DemoDevServer } from '../e2e/support/demo-dev-server.js';
import { useDatabase } from '../postgres/support/server.js';

const database = useDatabase();

let dev: DemoDevServer;
let origin: string;
let token: string;
let unusedDataDir: string;

beforeAll(async () => {
  const server = inject('postgres');
  unusedDataDir = await mkdtemp(join(tmpdir(), 'youyou-demo-unused-'));
  dev = await startDemoDevServer(
    {
      OPENAI_API_KEY: undefined,
      DATABASE_URL: `postgres://${encodeURIComponent(server.user)}:${encodeURIComponent(server.password)}@${server.host}:${server.port}/${database.name}`,
      DEMO_DATA_DIR: unusedDataDir,
    },
    { logLevel: 'silent' },
  );
  origin = dev.origin;
  token = dev.token!;
}, 120_000);

afterAll(async () => {
  await dev?.close();
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
