/**
 * The demo's MCP server: two read-only tools, `roll_dice` and `word_count`, served over MCP's
 * Streamable HTTP transport (the official SDK's `McpServer`) on 127.0.0.1, with the CORS headers
 * a page on another origin needs. `npm start` starts it next to the dev server; the end-to-end
 * tests start their own.
 * @module
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import * as z from 'zod';

/** What a browser needs to call this server from another origin. */
const CORS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET, POST, DELETE, OPTIONS',
  'access-control-allow-headers': 'content-type, mcp-session-id, mcp-protocol-version, authorization',
  'access-control-expose-headers': 'Mcp-Session-Id',
};

/** One session's server, with the demo's tools. */
function demoTools(random: () => number): McpServer {
  const server = new McpServer({ name: 'youyou-demo-mcp', version: '1.0.0' });
  server.registerTool(
    'roll_dice',
    {
      description: 'Rolls dice and returns each roll and the total',
      inputSchema: {
        count: z.number().int().min(1).max(20).describe('How many dice'),
        sides: z.number().int().min(2).max(100).describe('Sides of each die'),
      },
      annotations: { readOnlyHint: true },
    },
    async ({ count, sides }) => {
      const rolls = Array.from({ length: count }, () => 1 + Math.floor(random() * sides));
      const total = rolls.reduce((a, b) => a + b, 0);
      return { content: [{ type: 'text', text: `rolled ${rolls.join(', ')} (total ${total})` }] };
    },
  );
  server.registerTool(
    'word_count',
    {
      description: 'Counts the words of a text',
      inputSchema: { text: z.string().describe('The text') },
      annotations: { readOnlyHint: true },
    },
    async ({ text }) => {
      const words = text.trim() === '' ? 0 : text.trim().split(/\s+/).length;
      return { content: [{ type: 'text', text: `${words} word${words === 1 ? '' : 's'}` }] };
    },
  );
  return server;
}

function readJson(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    let raw = '';
    req.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')));
    req.on('end', () => {
      try {
        resolve(raw ? JSON.parse(raw) : undefined);
      } catch (error) {
        reject(error);
      }
    });
    req.on('error', reject);
  });
}

function fail(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

/** A running demo MCP server. */
export interface DemoMcpServer {
  /** e.g. `http://127.0.0.1:5174/mcp` */
  readonly url: string;
  close(): Promise<void>;
}

/**
 * Starts the server on `port` of 127.0.0.1 (`0`: any free port).
 * @example
 * const mcp = await startDemoMcpServer({ port: 0 });
 * console.log(mcp.url);
 */
export async function startDemoMcpServer(
  options: { port?: number; random?: () => number } = {},
): Promise<DemoMcpServer> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const http = createServer((req, res) => {
    void (async () => {
      for (const [name, value] of Object.entries(CORS)) res.setHeader(name, value);
      if (req.method === 'OPTIONS') return void res.writeHead(204).end();
      const body = req.method === 'POST' ? await readJson(req) : undefined;
      const id = req.headers['mcp-session-id'];
      let transport = typeof id === 'string' ? sessions.get(id) : undefined;
      if (typeof id === 'string' && !transport) return fail(res, 404, 'Session not found');
      if (!transport) {
        const opening = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (sessionId) => void sessions.set(sessionId, opening),
          onsessionclosed: (sessionId) => void sessions.delete(sessionId),
        });
        await demoTools(options.random ?? Math.random).connect(opening);
        transport = opening;
      }
      await transport.handleRequest(req, res, body);
    })().catch((error: unknown) => {
      if (!res.headersSent) fail(res, 400, String(error));
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port ?? 0, '127.0.0.1', resolve);
  });
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    async close() {
      await Promise.all([...sessions.values()].map((t) => t.close().catch(() => {})));
      sessions.clear();
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    },
  };
}
