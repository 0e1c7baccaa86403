/**
 * A raw wire server on 127.0.0.1 for the client's liveness tests: each request goes to the
 * test's `route`, which answers (or does not) as the test decides, speaking the session stream's
 * frames by hand. Every server is closed after its test.
 * @module
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach } from 'vitest';
import type { Conversation, ConversationItem } from '../../../src/index.js';

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** An empty conversation. */
export const EMPTY: Conversation = {
  items: [],
  turn: null,
  usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
  cost: null,
  context: { estimatedTokens: 0, contextWindow: 1000, compactAt: 800 },
};

/** A user item. */
export const USER: ConversationItem = {
  kind: 'user',
  id: 'message-0',
  content: [{ type: 'text', text: 'hi' }],
};

/** The state of session `s1`, with `conversation`, at stream position `tok.0`. */
export const stateOf = (conversation: Conversation = EMPTY, extra: Record<string, unknown> = {}) => ({
  id: 's1',
  messages: [],
  conversation,
  interruptedTurn: null,
  ...extra,
});

/** One SSE frame. */
export const frame = (id: string, event: string, data: unknown) =>
  `id: ${id}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

/** An `event` frame's data: an event of turn `t1` of `s1`. */
export const eventOf = (sequence: number, payload: Record<string, unknown>) => ({
  event: { sessionId: 's1', turnId: 't1', timestamp: '2026-12-01T00:00:00.000Z', sequence, payload },
});

const USAGE = { inputTokens: 1, outputTokens: 2, totalTokens: 3 };

/** A `completed` result frame's data for `t1`. */
export const completed = {
  turnId: 't1',
  status: 'completed',
  usage: USAGE,
  cost: null,
  interruptedTurn: null,
};

/** Starts an SSE answer (`heartbeatMs`: the header that names the server's interval). */
export function sse(res: ServerResponse, heartbeatMs?: number, turnId?: string): void {
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    ...(heartbeatMs !== undefined && { 'youyou-heartbeat-ms': String(heartbeatMs) }),
    ...(turnId !== undefined && { 'youyou-turn-id': turnId }),
  });
  res.flushHeaders();
}

/** Answers JSON. */
export function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

/** Serves `route` on 127.0.0.1; the base URL of the agent (`…/agent`). */
export async function wireServer(
  route: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<string> {
  const server = createServer((req, res) => {
    req.resume();
    route(req, res);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/agent`;
}
