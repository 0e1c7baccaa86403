/**
 * A local OpenAI-compatible `/chat/completions` server on 127.0.0.1 (node:http), for driving the
 * real `openai` SDK through `OpenAIProvider` over real HTTP. Each test says how to answer with
 * `respondWith`; every request is recorded.
 */
import { readFileSync } from 'node:fs';
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ChatEvent } from '../../src/types.js';

/** A request as the server received it. */
export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
}

/** How the server answers one request. */
export type Responder = (
  req: IncomingMessage,
  res: ServerResponse,
  body: Record<string, unknown>,
) => void | Promise<void>;

export class ChatCompletionsServer {
  readonly requests: RecordedRequest[] = [];
  #responder: Responder = (_req, res) => {
    res.writeHead(500).end('no responder');
  };

  private constructor(
    private readonly server: Server,
    readonly baseURL: string,
  ) {}

  static async start(): Promise<ChatCompletionsServer> {
    let self: ChatCompletionsServer | undefined;
    const server = createServer((req, res) => {
      let raw = '';
      req.setEncoding('utf8');
      req.on('data', (piece: string) => (raw += piece));
      req.on('end', () => {
        const body = raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
        self!.requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
        void self!.#responder(req, res, body);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    self = new ChatCompletionsServer(server, `http://127.0.0.1:${port}/v1`);
    return self;
  }

  /** Answer every following request with `responder`. */
  respondWith(responder: Responder): void {
    this.#responder = responder;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** The recorded streams, copied into the repo with their SOURCES.md. */
export function readFixture(name: string): string {
  return readFileSync(new URL(`../fixtures/chat-completions-sse/${name}`, import.meta.url), 'utf8');
}

/** Starts a 200 SSE response. */
export function startSse(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
}

/** Writes `text` in pieces of `size` bytes (so events and UTF-8 characters straddle writes). */
export async function writeInPieces(res: ServerResponse, text: string, size = 257): Promise<void> {
  const bytes = Buffer.from(text, 'utf8');
  for (let at = 0; at < bytes.length; at += size) {
    const piece = bytes.subarray(at, at + size);
    await new Promise<void>((resolve, reject) =>
      res.write(piece, (error) => (error ? reject(error) : resolve())),
    );
  }
}

/** A responder that streams `sse` and ends the response normally. */
export function streamText(sse: string): Responder {
  return async (_req, res) => {
    startSse(res);
    await writeInPieces(res, sse);
    res.end();
  };
}

/** One SSE event carrying `chunk` as JSON. */
export function sseEvent(chunk: unknown): string {
  return `data: ${JSON.stringify(chunk)}\n\n`;
}

/** What a provider stream produced before it ended or threw. */
export interface Outcome {
  events: ChatEvent[];
  error: unknown;
}

/** Drains `stream`, keeping the events that came before any error. */
export async function collect(stream: AsyncIterable<ChatEvent>): Promise<Outcome> {
  const events: ChatEvent[] = [];
  try {
    for await (const event of stream) events.push(event);
    return { events, error: undefined };
  } catch (error) {
    return { events, error };
  }
}

/** The concatenated text of all `text_delta` or `reasoning_delta` events. */
export function joined(events: readonly ChatEvent[], type: 'text_delta' | 'reasoning_delta'): string {
  return events.map((e) => (e.type === type ? e.text : '')).join('');
}

/** A promise that settles when the server side of the response is closed. */
export function closed(res: ServerResponse): Promise<{ finished: boolean }> {
  return new Promise((resolve) => res.on('close', () => resolve({ finished: res.writableFinished })));
}
