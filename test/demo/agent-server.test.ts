/**
 * The demo's server mode, over HTTP: the dev server started from the demo's own Vite config (as
 * `npm start` does, on a free port, with PGlite in a temporary data folder) answers the agent
 * routes at `/agent` for a request with the page's token and a user id, and nobody else. A
 * `RemoteAgent` runs turns against it as the page does.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ViteDevServer } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RemoteAgent } from '../../src/remote.js';
import { DEMO_USER_HEADER } from '../../demo/src/settings/demo-user.js';
import { startDemoDevServer, type DemoDevServer } from '../e2e/support/demo-dev-server.js';

let dev: DemoDevServer;
let vite: ViteDevServer;
let origin: string;
let dataDir: string;
let token: string;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'youyou-demo-pglite-'));
  dev = await startDemoDevServer(
    {
      OPENAI_API_KEY: undefined,
      DATABASE_URL: undefined,
      DEMO_DATA_DIR: dataDir,
    },
    { logLevel: 'silent' },
  );
  ({ vite, origin } = dev);
  // What the page is given: the token, and nothing about a key or the database.
  token = dev.token!;
  // The first authorized request opens the database: do it before the tests' clocks run.
  expect((await fetch(`${origin}/agent/sessions`, { headers: headers('user-warmup-01') })).status).toBe(200);
}, 120_000);

afterAll(async () => {
  await dev?.close();
  await rm(dataDir, { recursive: true, force: true });
});

const headers = (user: string) => ({ authorization: `Bearer ${token}`, [DEMO_USER_HEADER]: user });
const remote = (user: string) => new RemoteAgent({ url: `${origin}/agent`, headers: headers(user) });

describe("the demo's agent server", () => {
  it('answers 401 UNAUTHORIZED without the token, with another token, or without a user id', async () => {
    const cases: Record<string, string>[] = [
      {},
      { [DEMO_USER_HEADER]: 'user-aaaaaaaa' },
      { authorization: 'Bearer not-the-token', [DEMO_USER_HEADER]: 'user-aaaaaaaa' },
      { authorization: `Bearer ${token}` },
      { authorization: `Bearer ${token}`, [DEMO_USER_HEADER]: 'short' },
    ];
    for (const headers of cases) {
      const response = await fetch(`${origin}/agent/sessions`, { headers });
      expect(response.status).toBe(401);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe('UNAUTHORIZED');
    }
  });

  it('runs a turn with a tool call on the offline model, stored in PGlite, listed for its user only', async () => {
    const agent = remote('user-alice-0001');
    const session = await agent.newSession({ modelId: 'scripted-offline' });
    const turn = await session.sendMessage('what is 12 * (3 + 4)?');
    const result = await turn.result;
    expect(result.status).toBe('completed');
    let shown: { items: readonly { kind: string }[] } | undefined;
    session.conversation.subscribe((c) => (shown = c)).unsubscribe();
    const kinds = shown?.items.map((i) => i.kind);
    expect(kinds?.[0]).toBe('user');
    expect(kinds).toContain('tool');
    expect(JSON.stringify(shown)).toContain('84');
    await session.close();

    const page = await agent.listSessions(null, 20);
    expect(page.sessions.map((s) => s.id)).toEqual([session.id]);
    expect(page.sessions[0]?.modelId).toBe('scripted-offline');
    expect((await remote('user-bob-00002').listSessions(null, 20)).sessions).toEqual([]);
    // Another browser's id cannot open it.
    await expect(remote('user-bob-00002').resumeSession(session.id)).rejects.toMatchObject({
      code: 'SESSION_NOT_FOUND',
    });
    // The sessions are in the data folder.
    expect((await readdir(dataDir)).length).toBeGreaterThan(0);
    const resumed = await agent.resumeSession(session.id);
    const types = resumed.messages.map((m) => m.type);
    expect(types[0]).toBe('user');
    expect(types).toEqual(expect.arrayContaining(['tool_call', 'tool_result']));
    expect(types.at(-1)).toBe('assistant');
    await resumed.close();
  }, 60_000);

  it('asks before the notes tool adds a note, and runs it once approved', async () => {
    const session = await remote('user-carol-003').newSession({ modelId: 'scripted-offline' });
    const turn = await session.sendMessage('note: buy oat milk');
    const callId = await new Promise<string>((resolve) => {
      turn.events.subscribe(({ payload }) => {
        if (payload.type === 'approval_requested') resolve(payload.callId);
      });
    });
    await turn.approve(callId);
    expect((await turn.result).status).toBe('completed');
    let shown = '';
    session.conversation.subscribe((c) => (shown = JSON.stringify(c))).unsubscribe();
    expect(shown).toContain('Saved note 1: buy oat milk');
    await session.close();
  }, 60_000);

  it("the page's adapter: a structured answer by the server's schema name, the model kept, a search by title", async () => {
    // Loaded as the page loads it: through the dev server, with the demo's aliases.
    const { RemoteChatAgent } = (await vite.ssrLoadModule(
      '/src/agent/remote-chat-agent.ts',
    )) as typeof import('../../demo/src/agent/remote-chat-agent.js');
    const { TripPlanSchema } = (await vite.ssrLoadModule(
      '/src/parts/trip-plan.ts',
    )) as typeof import('../../demo/src/parts/trip-plan.js');
    const agent = new RemoteChatAgent({
      origin,
      token,
      userId: 'user-dave-0004',
      defaultModel: 'scripted-offline',
    });
    const session = await agent.newSession();
    expect(session.modelId).toBe('scripted-offline');
    // The page's options name a local schema; the server validates with its own of that name.
    const turn = await session.sendMessage('Plan a three-day trip to Kyoto.', {
      output: { schema: TripPlanSchema, name: 'trip_plan' },
    });
    const result = await turn.result;
    expect(result.status).toBe('completed');
    expect(TripPlanSchema.safeParse(result.output).success).toBe(true);
    await session.close();

    const other = await agent.newSession();
    await (
      await other.sendMessage('what is 2 + 2?')
    ).result;
    await other.close();
    const titles = (await agent.listSessions(null, 10)).sessions.map((s) => s.title);
    expect(titles).toHaveLength(2);
    const wanted = titles.find((t) => /kyoto/i.test(t));
    expect(wanted).toBeDefined();
    expect((await agent.findSessions('KYOTO')).map((s) => s.id)).toEqual([session.id]);
    expect(await agent.findSessions('no such words')).toEqual([]);
    const resumed = await agent.resumeSession(session.id);
    expect(resumed.modelId).toBe('scripted-offline');
    await resumed.close();
  }, 60_000);
});
