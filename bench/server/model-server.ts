/**
 * The server bench's model: an OpenAI-compatible `POST /v1/chat/completions` on 127.0.0.1 that
 * answers every request with the same kind of stream a real server sends (a role chunk, content
 * deltas, the finish reason, a usage chunk, `[DONE]`).
 *
 * The model id says how: `d<deltas>p<pace>` answers `<deltas>` deltas `w0 `, `w1 `, … followed by
 * one delta `[<tag>]` (the tag is the last user message, so a client can check that it got its
 * own answer), with `<pace>` ms between deltas (`p0`: the whole body in one write). A suffix
 * `w<width>` pads each delta with `width` more characters (`w0 xxx…`): answers of many megabytes.
 * When the tag starts with `lat-`, the moment each delta is written to the socket is kept (`emissions`), so a
 * client in the same process can tell how long each one took to reach it.
 * @module
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';

/** A running model server. */
export interface ModelServer {
  /** `http://127.0.0.1:<port>/v1`. */
  baseURL: string;
  /** For tags starting with `lat-`: when delta k was written (`performance.now()`), by tag. */
  emissions: Map<string, number[]>;
  /** How many requests it answered. */
  readonly requests: number;
  close(): Promise<void>;
}

/** The model id of an answer of `deltas` deltas, `paceMs` apart. */
export const modelId = (deltas: number, paceMs: number, width = 0): string =>
  `d${deltas}p${paceMs}${width > 0 ? `w${width}` : ''}`;

/** The text a client should receive for `tag` from model `modelId(deltas, …)`. */
export function expectedAnswer(deltas: number, tag: string): string {
  return `${Array.from({ length: deltas }, (_, k) => `w${k} `).join('')}[${tag}]`;
}

/** The delta index a `text_delta` of this server carries (`w12 ` → 12), or `null` for the tag. */
export function deltaIndex(text: string): number | null {
  const match = /^w(\d+) $/.exec(text);
  return match ? Number(match[1]) : null;
}

const BASE = '{"id":"chatcmpl-bench","object":"chat.completion.chunk","created":1700000000,"model":"bench",';
const chunk = (delta: object, finish: string | null = null) =>
  `data: ${BASE}"choices":[{"index":0,"delta":${JSON.stringify(delta)},"finish_reason":${JSON.stringify(finish)}}]}\n\n`;

/** The SSE events of one answer, one string per delta (first the role chunk, last the end). */
function answerEvents(
  deltas: number,
  tag: string,
  width: number,
): { head: string; deltas: string[]; tail: string } {
  const pad = 'x'.repeat(width);
  const texts = Array.from({ length: deltas }, (_, k) => `w${k} ${pad}`);
  texts.push(`[${tag}]`);
  const usage = { prompt_tokens: 50, completion_tokens: texts.length, total_tokens: 50 + texts.length };
  return {
    head: chunk({ role: 'assistant', content: '' }),
    deltas: texts.map((text) => chunk({ content: text })),
    tail: `${chunk({}, 'stop')}data: ${BASE}"choices":[],"usage":${JSON.stringify(usage)}}\n\ndata: [DONE]\n\n`,
  };
}

/** The text of the last user message of a Chat Completions request body. */
function lastUserText(body: { messages?: { role?: string; content?: unknown }[] }): string {
  const user = (body.messages ?? []).filter((m) => m.role === 'user').at(-1);
  const content = user?.content;
  if (typeof content === 'string') return content;
  if (Array.isArray(content))
    return content
      .map((part: { text?: unknown }) => (typeof part.text === 'string' ? part.text : ''))
      .join('');
  return '';
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function answer(
  res: ServerResponse,
  deltas: number,
  paceMs: number,
  width: number,
  tag: string,
  log: number[] | null,
) {
  const events = answerEvents(deltas, tag, width);
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  if (paceMs === 0 && log === null) {
    res.end(events.head + events.deltas.join('') + events.tail);
    return;
  }
  res.write(events.head);
  for (const event of events.deltas) {
    if (paceMs > 0) await sleep(paceMs);
    if (res.destroyed) return;
    res.write(event);
    log?.push(performance.now());
  }
  res.end(events.tail);
}

/** Starts the model server on 127.0.0.1 (a free port). */
export async function startModelServer(): Promise<ModelServer> {
  const emissions = new Map<string, number[]>();
  let requests = 0;
  const server = createServer((req, res) => {
    if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
      res.writeHead(404).end();
      return;
    }
    const pieces: Buffer[] = [];
    req.on('data', (piece: Buffer) => pieces.push(piece));
    req.on('end', () => {
      requests++;
      const body = JSON.parse(Buffer.concat(pieces).toString('utf8')) as {
        model?: string;
        messages?: { role?: string; content?: unknown }[];
      };
      const shape = /^d(\d+)p(\d+)(?:w(\d+))?$/.exec(body.model ?? '');
      if (!shape) {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            error: { message: `unknown model ${body.model}`, type: 'invalid_request_error' },
          }),
        );
        return;
      }
      const tag = lastUserText(body);
      let log: number[] | null = null;
      if (tag.startsWith('lat-')) emissions.set(tag, (log = []));
      void answer(res, Number(shape[1]), Number(shape[2]), Number(shape[3] ?? 0), tag, log).catch(() =>
        res.destroy(),
      );
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    emissions,
    get requests() {
      return requests;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
