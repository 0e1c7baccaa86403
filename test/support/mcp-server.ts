/**
 * A real MCP server for tests: the official SDK's `Server` behind its
 * `StreamableHTTPServerTransport`, on a free port of 127.0.0.1, one transport per session. It
 * logs every HTTP request it gets (method, the JSON-RPC methods in the body, the MCP headers),
 * can forget its sessions (so the next request with an old id gets 404), pages `tools/list`, and
 * sends the CORS headers a browser needs (with or without exposing `Mcp-Session-Id`).
 * @module
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

/** What a served tool's `run` gets besides its arguments. */
export interface ServedCall {
  /** Aborts when the client cancels the call (`notifications/cancelled`). */
  signal: AbortSignal;
  /** Sends `notifications/tools/list_changed` on this call's own response stream. */
  notifyListChanged(): Promise<void>;
}

/** One tool the test server offers. */
export interface ServedTool {
  name: string;
  description?: string;
  inputSchema?: Record<string, unknown>;
  annotations?: Record<string, unknown>;
  /** Answers a call: a `CallToolResult`. Default: the arguments as JSON text. */
  run?(args: Record<string, unknown>, call: ServedCall): Promise<Record<string, unknown>>;
}

/** One HTTP request the server received. */
export interface LoggedRequest {
  httpMethod: string;
  /** The JSON-RPC methods in a POST's body (`'response'` for a client's answer). */
  rpc: string[];
  sessionId: string | undefined;
  protocolVersion: string | undefined;
  authorization: string | undefined;
  /** The body's JSON-RPC messages. */
  body: Record<string, unknown>[];
}

/** Options of {@link startMcpServer}. */
export interface McpServerOptions {
  tools?: ServedTool[];
  /** Answer with `application/json` instead of an SSE stream. Default `false`. */
  json?: boolean;
  /** `tools/list` pages of this many tools. Default: one page. */
  pageSize?: number;
  /** CORS headers for browsers; `exposeSessionId: false` leaves out `Access-Control-Expose-Headers`. */
  cors?: { exposeSessionId: boolean };
  /** Leaves `Mcp-Session-Id` out of its answers, as a browser hides it without the CORS expose header. */
  hideSessionId?: boolean;
  /** Builds the server of each session instead (e.g. an `McpServer` with zod tools). */
  build?: () => Server | McpServer;
}

/** A running test server. */
export interface McpTestServer {
  url: string;
  readonly log: LoggedRequest[];
  /** The tools offered now (a test may change them). */
  tools: ServedTool[];
  /** The first logged request (so far or later) that `test` accepts. */
  received(test: (entry: LoggedRequest) => boolean): Promise<LoggedRequest>;
  /** JSON-RPC methods of all POSTs so far, in order. */
  rpcMethods(): string[];
  /** Forgets every session: the next request with an old session id gets 404. */
  expireSessions(): Promise<void>;
  /** Sends `notifications/tools/list_changed` to every session (on its GET stream). */
  notifyListChanged(): Promise<void>;
  close(): Promise<void>;
}

const CORS_ALLOW = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET, POST, DELETE, OPTIONS',
  'access-control-allow-headers':
    'content-type, mcp-session-id, mcp-protocol-version, authorization, last-event-id',
};

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (text += chunk));
    req.on('end', () => resolve(text));
    req.on('error', reject);
  });
}

function jsonError(res: ServerResponse, status: number, code: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

/**
 * Starts a test MCP server.
 * @example
 * const server = await startMcpServer({ tools: [{ name: 'search' }] });
 * mcpServer({ name: 'test', url: server.url });
 * await server.close();
 */
export async function startMcpServer(options: McpServerOptions = {}): Promise<McpTestServer> {
  const sessions = new Map<string, { transport: StreamableHTTPServerTransport; server: Server }>();
  const log: LoggedRequest[] = [];
  const waiters: { test: (entry: LoggedRequest) => boolean; resolve: (entry: LoggedRequest) => void }[] = [];
  const state = { tools: options.tools ?? [] };

  const buildServer = (): Server => {
    if (options.build) {
      const built = options.build();
      return built instanceof Server ? built : built.server;
    }
    const server = new Server(
      { name: 'test-server', version: '1.0.0' },
      { capabilities: { tools: { listChanged: true } } },
    );
    server.setRequestHandler(ListToolsRequestSchema, async (request) => {
      const all = state.tools.map(({ run: _run, ...info }) => ({
        inputSchema: { type: 'object' },
        ...info,
      }));
      const size = options.pageSize ?? all.length;
      const start = Number(request.params?.cursor ?? 0);
      const next = start + size;
      return { tools: all.slice(start, next), ...(next < all.length && { nextCursor: String(next) }) };
    });
    server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      const tool = state.tools.find((t) => t.name === request.params.name);
      if (!tool)
        return { content: [{ type: 'text', text: `no tool ${request.params.name}` }], isError: true };
      const args = (request.params.arguments ?? {}) as Record<string, unknown>;
      if (!tool.run) return { content: [{ type: 'text', text: JSON.stringify(args) }] };
      return tool.run(args, {
        signal: extra.signal,
        notifyListChanged: () => extra.sendNotification({ method: 'notifications/tools/list_changed' }),
      }) as never;
    });
    return server;
  };

  const http = createServer(async (req, res) => {
    try {
      if (options.cors) {
        for (const [name, value] of Object.entries(CORS_ALLOW)) res.setHeader(name, value);
        if (options.cors.exposeSessionId) res.setHeader('access-control-expose-headers', 'Mcp-Session-Id');
      }
      if (req.method === 'OPTIONS') {
        res.writeHead(204).end();
        return;
      }
      const text = req.method === 'POST' ? await readBody(req) : '';
      const parsed: unknown = text ? JSON.parse(text) : undefined;
      const body = (Array.isArray(parsed) ? parsed : parsed ? [parsed] : []) as Record<string, unknown>[];
      const sessionId = req.headers['mcp-session-id'] as string | undefined;
      const entry: LoggedRequest = {
        httpMethod: req.method ?? '?',
        rpc: body.map((m) => (typeof m.method === 'string' ? m.method : 'response')),
        sessionId,
        protocolVersion: req.headers['mcp-protocol-version'] as string | undefined,
        authorization: req.headers.authorization,
        body,
      };
      log.push(entry);
      for (const waiter of waiters.filter((w) => w.test(entry))) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(entry);
      }
      let session = sessionId ? sessions.get(sessionId) : undefined;
      if (sessionId && !session) return jsonError(res, 404, -32001, 'Session not found');
      if (!session) {
        if (!body.some((m) => m.method === 'initialize')) {
          return jsonError(res, 400, -32000, 'Bad Request: Mcp-Session-Id header is required');
        }
        const server = buildServer();
        const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          enableJsonResponse: options.json === true,
          onsessioninitialized: (id) => void sessions.set(id, { transport, server }),
          onsessionclosed: (id) => void sessions.delete(id),
        });
        await server.connect(transport);
        session = { transport, server };
      }
      if (options.hideSessionId) {
        const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => ServerResponse;
        res.writeHead = ((status: number, ...rest: unknown[]) => {
          res.removeHeader('mcp-session-id');
          const headers = rest.find((r) => typeof r === 'object' && r !== null);
          if (Array.isArray(headers)) {
            const kept = headers.filter((pair) => !/^mcp-session-id$/i.test(String(pair?.[0])));
            headers.splice(0, headers.length, ...kept);
          } else if (headers) {
            for (const key of Object.keys(headers)) {
              if (/^mcp-session-id$/i.test(key)) delete (headers as Record<string, unknown>)[key];
            }
          }
          return writeHead(status, ...rest);
        }) as typeof res.writeHead;
      }
      await session.transport.handleRequest(req, res, parsed);
    } catch (error) {
      if (!res.headersSent) jsonError(res, 500, -32603, String(error));
    }
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;

  const closeSessions = async () => {
    const open = [...sessions.values()];
    sessions.clear();
    await Promise.all(open.map(({ server }) => server.close().catch(() => {})));
  };

  return {
    url: `http://127.0.0.1:${port}/mcp`,
    log,
    get tools() {
      return state.tools;
    },
    set tools(tools) {
      state.tools = tools;
    },
    received: (test) => {
      const found = log.find(test);
      return found ? Promise.resolve(found) : new Promise((resolve) => waiters.push({ test, resolve }));
    },
    rpcMethods: () => log.flatMap((entry) => entry.rpc),
    expireSessions: closeSessions,
    notifyListChanged: async () => {
      await Promise.all([...sessions.values()].map(({ server }) => server.sendToolListChanged()));
    },
    close: async () => {
      await closeSessions();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
