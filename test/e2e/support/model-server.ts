/**
 * A local OpenAI-compatible `/v1/chat/completions` server on 127.0.0.1 for the demo in the
 * browser, so with CORS: it answers preflights and lets the page read `retry-after`. Each test
 * says how to answer a turn's requests; memory extraction and consolidation requests (no tools)
 * get an empty answer. Every request is recorded.
 * @module
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** How to answer one request of a turn. */
export type Reply =
  /** Streams `text` in `chunks` pieces, `delayMs` apart, after optional reasoning. */
  | { text: string; reasoning?: string; chunks?: number; delayMs?: number }
  /** Asks for these tool calls. */
  | { toolCalls: { name: string; arguments: Record<string, unknown> }[] }
  /** Streams `text`, then keeps the response open until the client goes away. */
  | { hold: string }
  /** Fails with this HTTP status (and `Retry-After` in seconds). */
  | { status: number; retryAfterSeconds?: number };

/** A request as the server received it. */
export interface RecordedRequest {
  headers: IncomingHttpHeaders;
  body: { model?: string; messages?: { role: string; content?: unknown }[]; tools?: unknown[] };
  /** Set when the client closed the connection before the response ended. */
  aborted: boolean;
}

type Responder = (body: RecordedRequest['body'], turnRequest: number) => Reply;

export class ModelServer {
  /** Since the last {@link respondWith}. */
  readonly requests: RecordedRequest[] = [];
  #responder: Responder = () => ({ status: 500 });
  #turnRequests = 0;

  private constructor(
    private readonly server: ReturnType<typeof createServer>,
    readonly baseURL: string,
  ) {}

  static async start(): Promise<ModelServer> {
    let self: ModelServer | undefined;
    const server = createServer((req, res) => {
      for (const [name, value] of Object.entries(CORS)) res.setHeader(name, value);
      if (req.method === 'OPTIONS') {
        res.setHeader('access-control-allow-headers', req.headers['access-control-request-headers'] ?? '*');
        return void res.writeHead(204).end();
      }
      let raw = '';
      req.setEncoding('utf8');
      req.on('data', (piece: string) => (raw += piece));
      req.on('end', () => void self!.#answer(req.headers, raw, res));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    self = new ModelServer(server, `http://127.0.0.1:${port}/v1`);
    return self;
  }

  /** Answers the following turn requests with `responder`; forgets the requests so far. */
  respondWith(responder: Responder): void {
    this.#responder = responder;
    this.#turnRequests = 0;
    this.requests.length = 0;
  }

  /** The recorded requests of turns (those that offer tools). */
  get turnRequests(): RecordedRequest[] {
    return this.requests.filter((r) => (r.body.tools?.length ?? 0) > 0);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  async #answer(headers: IncomingHttpHeaders, raw: string, res: ServerResponse): Promise<void> {
    const body = (raw ? JSON.parse(raw) : {}) as RecordedRequest['body'];
    const record: RecordedRequest = { headers, body, aborted: false };
    this.requests.push(record);
    res.on('close', () => {
      if (!res.writableFinished) record.aborted = true;
    });
    const isTurn = (body.tools?.length ?? 0) > 0;
    const reply: Reply = isTurn ? this.#responder(body, this.#turnRequests++) : { text: '{"memories":[]}' };
    await send(res, body.model ?? 'model', reply);
  }
}

const CORS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'POST, OPTIONS',
  'access-control-expose-headers': 'retry-after, retry-after-ms',
  'access-control-max-age': '600',
};

async function send(res: ServerResponse, model: string, reply: Reply): Promise<void> {
  if ('status' in reply) {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (reply.retryAfterSeconds !== undefined) headers['retry-after'] = String(reply.retryAfterSeconds);
    res
      .writeHead(reply.status, headers)
      .end(JSON.stringify({ error: { message: `test server says ${reply.status}` } }));
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const chunk = (delta: object, finish: string | null = null) =>
    write(res, {
      id: 'chatcmpl-e2e',
      object: 'chat.completion.chunk',
      created: 0,
      model,
      choices: [{ index: 0, delta, finish_reason: finish }],
    });
  await chunk({ role: 'assistant', content: '' });
  if ('hold' in reply) {
    await chunk({ content: reply.hold });
    return; // left open: the client ends it
  }
  if ('toolCalls' in reply) {
    for (const [index, call] of reply.toolCalls.entries()) {
      await chunk({
        tool_calls: [
          {
            index,
            id: `call_${index}_${call.name}`,
            type: 'function',
            function: { name: call.name, arguments: JSON.stringify(call.arguments) },
          },
        ],
      });
    }
    await chunk({}, 'tool_calls');
  } else {
    if (reply.reasoning) await chunk({ reasoning_content: reply.reasoning });
    for (const piece of pieces(reply.text, reply.chunks ?? 1)) {
      if (reply.delayMs) await new Promise((resolve) => setTimeout(resolve, reply.delayMs));
      await chunk({ content: piece });
    }
    await chunk({}, 'stop');
  }
  await write(res, {
    id: 'chatcmpl-e2e',
    object: 'chat.completion.chunk',
    created: 0,
    model,
    choices: [],
    usage: { prompt_tokens: 120, completion_tokens: 30, total_tokens: 150 },
  });
  res.end('data: [DONE]\n\n');
}

function write(res: ServerResponse, data: object): Promise<void> {
  return new Promise((resolve) => res.write(`data: ${JSON.stringify(data)}\n\n`, () => resolve()));
}

/** `text` cut into `n` pieces of about the same length. */
function pieces(text: string, n: number): string[] {
  const size = Math.ceil(text.length / n);
  const out: string[] = [];
  for (let at = 0; at < text.length; at += size) out.push(text.slice(at, at + size));
  return out;
}
