import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { IDBFactory } from 'fake-indexeddb';
import { afterEach, describe, expect, it, vi } from 'vitest';
import * as z from 'zod';
import type { AgentEvent, ChatRequest, ToolSource } from '../../src/index.js';
import { mcpServer, type McpClientLike } from '../../src/mcp.js';
import { toolName } from '../../src/mcp/tool-names.js';
import { reply, type ScriptStep } from '../../src/testing/index.js';
import { createTestAgent } from '../support/agent.js';
import { eventsOf, errorPayloads } from '../support/events.js';
import { startMcpServer, type McpTestServer, type ServedTool } from '../support/mcp-server.js';

const servers: McpTestServer[] = [];
async function serve(options: Parameters<typeof startMcpServer>[0]) {
  const server = await startMcpServer(options);
  servers.push(server);
  return server;
}

afterEach(async () => {
  vi.unstubAllGlobals();
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const searchTool = (answer: string): ServedTool => ({
  name: 'search',
  description: 'Finds things',
  inputSchema: {
    type: 'object',
    properties: { q: { type: 'string', description: 'what to find' } },
    required: ['q'],
  },
  annotations: { readOnlyHint: true },
  run: async (args) => ({ content: [{ type: 'text', text: `${answer}: ${String(args.q)}` }] }),
});

/** One turn on a fresh agent with `sources`, the model scripted by `script`. */
async function turnWith(sources: ToolSource[], script: ScriptStep[]) {
  const { agent, provider } = await createTestAgent({ toolSources: sources, script });
  const session = await agent.newSession();
  const turn = await session.sendMessage('go');
  const events = await eventsOf(turn);
  const result = await turn.result;
  await agent.shutdown();
  return { events, result, requests: provider.requests as readonly ChatRequest[], agent };
}

const resultsOf = (request: ChatRequest | undefined) =>
  request?.messages.filter((m) => m.type === 'tool_result');

describe('MCP tools in a turn', () => {
  it('the model sees the server’s JSON Schema as is and its call reaches the server', async () => {
    const server = await serve({
      tools: [
        searchTool('found'),
        { name: 'broken', run: async () => ({ content: [{ type: 'text', text: 'quota' }], isError: true }) },
      ],
    });
    const { result, requests } = await turnWith(
      // These tools carry no annotations, so by default each call would wait for approval.
      [mcpServer({ name: 'docs', url: server.url, cache: false, approval: 'never' })],
      [
        reply.toolCalls([
          { name: 'search', arguments: { q: 'cats' }, callId: 'c1' },
          { name: 'broken', arguments: {}, callId: 'c2' },
        ]),
        reply.text('done'),
      ],
    );
    expect(result.status).toBe('completed');
    expect(requests[0]!.tools).toEqual([
      {
        name: 'search',
        description: 'Finds things',
        parameters: {
          type: 'object',
          properties: { q: { type: 'string', description: 'what to find' } },
          required: ['q'],
        },
      },
      { name: 'broken', description: '', parameters: { type: 'object' } },
    ]);
    expect(resultsOf(requests[1])).toEqual([
      { type: 'tool_result', callId: 'c1', content: 'found: cats', isError: false },
      { type: 'tool_result', callId: 'c2', content: 'quota', isError: true },
    ]);
    // shutdown closed the session.
    expect(server.log.at(-1)!.httpMethod).toBe('DELETE');
  });

  it('two servers with a `search` tool: left out under original names, reported once each', async () => {
    const a = await serve({ tools: [searchTool('a'), { name: 'only_a' }] });
    const b = await serve({ tools: [searchTool('b')] });
    const { events, requests } = await turnWith(
      [
        mcpServer({ name: 'a', url: a.url, cache: false }),
        mcpServer({ name: 'b', url: b.url, cache: false }),
      ],
      [reply.text('ok')],
    );
    expect(requests[0]!.tools.map((t) => t.name)).toEqual(['only_a']);
    const conflicts = errorPayloads(events);
    expect(conflicts.map((e) => [e.error.code, e.fatal])).toEqual([
      ['NAME_CONFLICT', false],
      ['NAME_CONFLICT', false],
    ]);
    expect(conflicts.map((e) => e.error.message.match(/tool source '(\w)'/)?.[1])).toEqual(['a', 'b']);
  });

  it('two servers with a `search` tool under prefixed names: both offered, each call reaches its server', async () => {
    const a = await serve({ tools: [searchTool('a')] });
    const b = await serve({ tools: [searchTool('b')] });
    const { events, requests } = await turnWith(
      [
        mcpServer({ name: 'a', url: a.url, cache: false, toolNames: 'prefixed' }),
        mcpServer({ name: 'b', url: b.url, cache: false, toolNames: 'prefixed' }),
      ],
      [
        reply.toolCalls([
          { name: 'mcp_a__search', arguments: { q: 'x' }, callId: 'c1' },
          { name: 'mcp_b__search', arguments: { q: 'y' }, callId: 'c2' },
        ]),
        reply.text('ok'),
      ],
    );
    expect(errorPayloads(events)).toEqual([]);
    expect(requests[0]!.tools.map((t) => t.name)).toEqual(['mcp_a__search', 'mcp_b__search']);
    expect(resultsOf(requests[1])!.map((m) => (m as { content: string }).content)).toEqual(['a: x', 'b: y']);
  });

  it('an unreachable server: the turn goes on without it, with a non-fatal TOOL_SOURCE_UNAVAILABLE', async () => {
    const gone = await serve({});
    const { url } = gone;
    await gone.close();
    servers.splice(servers.indexOf(gone), 1);
    const { events, result, requests } = await turnWith(
      [mcpServer({ name: 'gone', url, cache: false })],
      [reply.text('without tools')],
    );
    expect(result.status).toBe('completed');
    expect(requests[0]!.tools).toEqual([]);
    expect(errorPayloads(events).map((e) => [e.error.code, e.fatal])).toEqual([
      ['TOOL_SOURCE_UNAVAILABLE', false],
    ]);
  });

  it('after a reload (a new agent on the same IndexedDB) a turn asks the server nothing', async () => {
    vi.stubGlobal('indexedDB', new IDBFactory());
    const server = await serve({ tools: [searchTool('found')] });
    const first = await turnWith([mcpServer({ name: 'docs', url: server.url })], [reply.text('one')]);
    expect(first.requests[0]!.tools.map((t) => t.name)).toEqual(['search']);
    expect(server.rpcMethods().filter((m) => m === 'tools/list')).toHaveLength(1);

    const seen = server.log.length;
    const second = await turnWith([mcpServer({ name: 'docs', url: server.url })], [reply.text('two')]);
    expect(second.requests[0]!.tools.map((t) => t.name)).toEqual(['search']);
    expect(server.log.slice(seen)).toEqual([]);

    // The list came from IndexedDB: another database lists again.
    vi.stubGlobal('indexedDB', new IDBFactory());
    await turnWith([mcpServer({ name: 'docs', url: server.url })], [reply.text('three')]);
    expect(server.rpcMethods().filter((m) => m === 'tools/list')).toHaveLength(2);
  });

  it('the official SDK Client plugs in as `client`, against the SDK’s McpServer', async () => {
    const server = await serve({
      build: () => {
        const mcp = new McpServer({ name: 'sdk-server', version: '1.0.0' });
        mcp.registerTool(
          'word_count',
          {
            description: 'Counts words',
            inputSchema: { text: z.string() },
            annotations: { readOnlyHint: true },
          },
          async ({ text }) => ({ content: [{ type: 'text', text: String(text.split(/\s+/).length) }] }),
        );
        return mcp;
      },
    });
    const client = new Client({ name: 'test-client', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
    const { requests } = await turnWith(
      [mcpServer({ name: 'sdk', url: server.url, cache: false, client: client as McpClientLike })],
      [reply.toolCalls([{ name: 'word_count', arguments: { text: 'one two three' } }]), reply.text('3')],
    );
    expect(requests[0]!.tools[0]).toMatchObject({
      name: 'word_count',
      parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    });
    expect(resultsOf(requests[1])).toMatchObject([{ content: '3', isError: false }]);
    expect(server.rpcMethods()).toEqual(expect.arrayContaining(['initialize', 'tools/list', 'tools/call']));
    // shutdown closed the client (and so its transport).
    expect(client.transport).toBeUndefined();
  });

  it('the built-in client against the SDK’s McpServer with zod tools', async () => {
    const server = await serve({
      json: true,
      build: () => {
        const mcp = new McpServer({ name: 'sdk-server', version: '1.0.0' });
        mcp.registerTool(
          'roll',
          { description: 'Rolls', inputSchema: { sides: z.number() } },
          async ({ sides }) => ({
            content: [{ type: 'text', text: `rolled ${sides}` }],
          }),
        );
        return mcp;
      },
    });
    const { requests } = await turnWith(
      [mcpServer({ name: 'sdk', url: server.url, cache: false, approval: 'never' })],
      [reply.toolCalls([{ name: 'roll', arguments: { sides: 6 } }]), reply.text('ok')],
    );
    expect(resultsOf(requests[1])).toMatchObject([{ content: 'rolled 6', isError: false }]);
  });
});

describe('MCP tool metadata', () => {
  const annotated = (name: string, annotations?: Record<string, unknown>): ServedTool => ({
    name,
    ...(annotations && { annotations }),
  });

  it('mutating unless readOnlyHint; approval by default unless read-only or destructiveHint: false', async () => {
    const server = await serve({
      tools: [
        annotated('plain'),
        annotated('reader', { readOnlyHint: true }),
        annotated('harmless', { destructiveHint: false }),
        annotated('contradictory', { readOnlyHint: true, destructiveHint: true }),
      ],
    });
    const shape = async (approval?: 'always' | 'never' | 'destructive') => {
      const source = mcpServer({ name: 's', url: server.url, cache: false, ...(approval && { approval }) });
      const tools = await source.tools(new AbortController().signal);
      await source.close!();
      return tools.map((t) => [t.name, t.mutating, t.needsApproval]);
    };
    expect(await shape()).toEqual([
      ['plain', true, true],
      ['reader', false, false],
      ['harmless', true, false],
      ['contradictory', false, true],
    ]);
    expect((await shape('always')).map((t) => t[2])).toEqual([true, true, true, true]);
    expect((await shape('never')).map((t) => t[2])).toEqual([false, false, false, false]);
  });

  it('filter keeps the named tools, or those a test accepts', async () => {
    const server = await serve({
      tools: [annotated('a'), annotated('b', { readOnlyHint: true }), annotated('c')],
    });
    const names = async (
      filter: readonly string[] | ((tool: { name: string; annotations?: object }) => boolean),
    ) => {
      const source = mcpServer({ name: 's', url: server.url, cache: false, filter });
      const tools = await source.tools(new AbortController().signal);
      await source.close!();
      return tools.map((t) => t.name);
    };
    expect(await names(['c', 'a'])).toEqual(['a', 'c']);
    expect(await names((tool) => tool.annotations !== undefined)).toEqual(['b']);
  });

  it('names fit model APIs: sanitized, clipped to 64 with a hash, the same every time', () => {
    expect(toolName('docs', 'search', true)).toBe('mcp_docs__search');
    expect(toolName('my server', 'files.read', true)).toBe('mcp_my_server__files_read');
    expect(toolName('docs', 'files.read', false)).toBe('files_read');
    const long = toolName(
      'a-very-long-server-name',
      'and_an_even_longer_tool_name_that_goes_on_and_on',
      true,
    );
    expect(long).toMatch(/^[A-Za-z0-9_-]{64}$/);
    expect(long).toBe(
      toolName('a-very-long-server-name', 'and_an_even_longer_tool_name_that_goes_on_and_on', true),
    );
    expect(long).not.toBe(
      toolName('a-very-long-server-name', 'and_an_even_longer_tool_name_that_goes_on_and_no', true),
    );
    expect(long.slice(0, 55)).toBe('mcp_a-very-long-server-name__and_an_even_longer_tool_na');
  });
});
