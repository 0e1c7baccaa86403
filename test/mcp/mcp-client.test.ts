import { firstValueFrom } from 'rxjs';
import { afterEach, describe, expect, it } from 'vitest';
import { mcpServer } from '../../src/mcp.js';
import type { ToolHandler, ToolSource } from '../../src/index.js';
import { expectAgentError } from '../support/errors.js';
import { deferred } from '../support/waits.js';
import { startMcpServer, type McpTestServer, type ServedTool } from '../support/mcp-server.js';

const signal = new AbortController().signal;
const servers: McpTestServer[] = [];
const sources: ToolSource[] = [];

async function serve(options: Parameters<typeof startMcpServer>[0]) {
  const server = await startMcpServer(options);
  servers.push(server);
  return server;
}

/** An `mcpServer` source without the cache (each test sees the server's own answers). */
function source(options: Partial<Parameters<typeof mcpServer>[0]> & { url: string }) {
  const made = mcpServer({ name: 'test', cache: false, ...options });
  sources.push(made);
  return made;
}

async function call(tool: ToolHandler | undefined, args: unknown, callSignal = signal) {
  if (!tool) throw new Error('no such tool');
  return tool.execute({ callId: 'c', arguments: args, sessionId: 's', turnId: 't', signal: callSignal });
}

afterEach(async () => {
  await Promise.all(sources.splice(0).map((s) => s.close?.().catch(() => {})));
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const search: ServedTool = {
  name: 'search',
  description: 'Finds things',
  inputSchema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
  annotations: { readOnlyHint: true },
  run: async (args) => ({ content: [{ type: 'text', text: `found ${String(args.q)}` }] }),
};

describe.each([
  ['an SSE stream', false],
  ['JSON', true],
])('the built-in client, answers as %s', (_label, json) => {
  it('initializes, then lists and calls with the session id and protocol version', async () => {
    const server = await serve({ tools: [search], json });
    const tools = await source({ url: server.url }).tools(signal);
    expect(tools.map((t) => t.name)).toEqual(['search']);
    expect(await call(tools[0], { q: 'cats' })).toEqual({ content: 'found cats' });

    expect(server.rpcMethods()).toEqual([
      'initialize',
      'notifications/initialized',
      'tools/list',
      'tools/call',
    ]);
    const [init, ...rest] = server.log.filter((entry) => entry.httpMethod === 'POST');
    expect(init!.sessionId).toBeUndefined();
    const sessionId = rest[0]!.sessionId;
    expect(sessionId).toMatch(/^[0-9a-f-]{36}$/);
    for (const entry of rest) {
      expect(entry.sessionId).toBe(sessionId);
      expect(entry.protocolVersion).toBe('2025-06-18');
    }
  });
});

describe('the built-in client', () => {
  it('pages tools/list through nextCursor', async () => {
    const tools = ['a', 'b', 'c', 'd', 'e'].map((name) => ({ name }));
    const server = await serve({ tools, pageSize: 2 });
    const listed = await source({ url: server.url }).tools(signal);
    expect(listed.map((t) => t.name)).toEqual(['a', 'b', 'c', 'd', 'e']);
    const lists = server.log.filter((entry) => entry.rpc[0] === 'tools/list');
    expect(lists.map((entry) => (entry.body[0]!.params as { cursor?: string }).cursor)).toEqual([
      undefined,
      '2',
      '4',
    ]);
  });

  it('an isError result is an error output; other blocks are named, structured content is JSON', async () => {
    const server = await serve({
      tools: [
        {
          name: 'fails',
          run: async () => ({ content: [{ type: 'text', text: 'no such city' }], isError: true }),
        },
        {
          name: 'mixed',
          run: async () => ({
            content: [
              { type: 'text', text: 'a chart:' },
              { type: 'image', data: 'AAAA', mimeType: 'image/png' },
            ],
          }),
        },
        { name: 'structured', run: async () => ({ content: [], structuredContent: { n: 1 } }) },
      ],
    });
    const [fails, mixed, structured] = await source({ url: server.url }).tools(signal);
    expect(await call(fails, {})).toEqual({ content: 'no such city', isError: true });
    expect(await call(mixed, {})).toEqual({ content: 'a chart:\n[image image/png]' });
    expect(await call(structured, {})).toEqual({ content: '{"n":1}' });
  });

  it('a 404 for its session initializes once more and sends the request again', async () => {
    const server = await serve({ tools: [search] });
    const [tool] = await source({ url: server.url }).tools(signal);
    const before = server.log.length;
    await server.expireSessions();
    expect(await call(tool, { q: 'again' })).toEqual({ content: 'found again' });
    const after = server.log.slice(before).filter((entry) => entry.httpMethod === 'POST');
    expect(after.map((entry) => entry.rpc[0])).toEqual([
      'tools/call',
      'initialize',
      'notifications/initialized',
      'tools/call',
    ]);
    expect(after[3]!.sessionId).not.toBe(after[0]!.sessionId);
  });

  it('close() ends the session with DELETE', async () => {
    const server = await serve({ tools: [search] });
    const made = source({ url: server.url });
    await made.tools(signal);
    const sessionId = server.log.at(-1)!.sessionId;
    await made.close!();
    const last = server.log.at(-1)!;
    expect(last.httpMethod).toBe('DELETE');
    expect(last.sessionId).toBe(sessionId);
  });

  it('an aborted call is cancelled at the server with notifications/cancelled', async () => {
    const started = deferred();
    const stopped = deferred<string>();
    const server = await serve({
      tools: [
        {
          name: 'slow',
          run: (_args, { signal: callSignal }) =>
            new Promise((resolve) => {
              started.resolve();
              callSignal.addEventListener('abort', () => {
                stopped.resolve('aborted at the server');
                resolve({ content: [] });
              });
            }),
        },
      ],
    });
    const [slow] = await source({ url: server.url }).tools(signal);
    const controller = new AbortController();
    const running = call(slow, {}, controller.signal);
    await started.promise;
    controller.abort(new Error('user stopped it'));
    await expect(running).rejects.toThrow();
    expect(await stopped.promise).toBe('aborted at the server');
    const callId = server.log.find((entry) => entry.rpc[0] === 'tools/call')!.body[0]!.id;
    const cancel = server.log.find((entry) => entry.rpc[0] === 'notifications/cancelled')!;
    expect(cancel.body[0]!.params).toMatchObject({ requestId: callId, reason: 'user stopped it' });
  });

  it('sends the headers option with every request, a function asked each time', async () => {
    const server = await serve({ tools: [search] });
    let n = 0;
    const [tool] = await source({
      url: server.url,
      headers: async () => ({ authorization: `Bearer t${++n}` }),
    }).tools(signal);
    await call(tool, { q: 'x' });
    await server.received((entry) => entry.httpMethod === 'GET');
    // Every request (the GET stream's too) asked for its own.
    const sent = server.log.map((entry) => entry.authorization);
    expect(sent).toHaveLength(n);
    expect(new Set(sent)).toEqual(new Set(Array.from({ length: n }, (_, i) => `Bearer t${i + 1}`)));
  });

  it('tells list_changed on a call’s SSE answer: changes emits and the next list is fresh', async () => {
    const server = await serve({ tools: [] });
    server.tools = [
      {
        name: 'add_tool',
        run: async (_args, { notifyListChanged }) => {
          server.tools = [...server.tools, { name: 'added' }];
          await notifyListChanged();
          return { content: [{ type: 'text', text: 'added' }] };
        },
      },
    ];
    const made = mcpServer({ name: 'changing', url: server.url });
    sources.push(made);
    const [add] = await made.tools(signal);
    const changed = firstValueFrom(made.changes!);
    await call(add, {});
    await changed;
    expect((await made.tools(signal)).map((t) => t.name)).toEqual(['add_tool', 'added']);
    expect(server.rpcMethods().filter((m) => m === 'tools/list')).toHaveLength(2);
  });

  it('hears list_changed on the GET stream when the server announces it', async () => {
    const server = await serve({ tools: [search] });
    const made = mcpServer({ name: 'listening', url: server.url });
    sources.push(made);
    await made.tools(signal);
    const changed = firstValueFrom(made.changes!);
    // The GET stream opens after initialize; wait until the server has it.
    await server.received((entry) => entry.httpMethod === 'GET');
    await server.notifyListChanged();
    await changed;
    server.tools = [search, { name: 'more' }];
    expect((await made.tools(signal)).map((t) => t.name)).toEqual(['search', 'more']);
  });

  it('an unreachable server is TOOL_SOURCE_UNAVAILABLE naming the server and the address', async () => {
    const server = await serve({});
    const { url } = server;
    await server.close();
    servers.splice(servers.indexOf(server), 1);
    const error = await expectAgentError(
      source({ url, name: 'gone' }).tools(signal),
      'TOOL_SOURCE_UNAVAILABLE',
      "'gone'",
      url,
    );
    expect(error.message).toContain('CORS');
  });

  it('a session id the client cannot read is named: Access-Control-Expose-Headers: Mcp-Session-Id', async () => {
    const server = await serve({ tools: [search], hideSessionId: true });
    await expectAgentError(
      source({ url: server.url }).tools(signal),
      'TOOL_SOURCE_UNAVAILABLE',
      'Access-Control-Expose-Headers: Mcp-Session-Id',
    );
  });
});
