/**
 * Mounts a web-standard handler (`(Request) => Promise<Response>`) on node:http as a connect-style
 * middleware, the shape both Vite's dev server and a plain `createServer` take. Kept small: the
 * request body is passed as a stream, the response body is written as it comes (an SSE answer
 * stays streamed, with back-pressure), and a client that goes away aborts the request's `signal`
 * and cancels the response body.
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';

/** A web-standard request handler. */
export type WebHandler = (request: Request) => Promise<Response>;

/** A connect-style middleware: `next()` passes the request on. */
export type Middleware = (req: IncomingMessage, res: ServerResponse, next: () => void) => void;

function toRequest(req: IncomingMessage, signal: AbortSignal): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  const method = req.method ?? 'GET';
  const hasBody = method !== 'GET' && method !== 'HEAD';
  return new Request(`http://${req.headers.host ?? '127.0.0.1'}${req.url ?? '/'}`, {
    method,
    headers,
    signal,
    ...(hasBody && { body: Readable.toWeb(req) as ReadableStream<Uint8Array>, duplex: 'half' }),
  } as RequestInit);
}

async function send(response: Response, res: ServerResponse): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => (headers[name] = value));
  res.writeHead(response.status, headers);
  // Headers go out now: a streamed answer's first byte may be a while.
  res.flushHeaders();
  if (!response.body) return void res.end();
  const reader = response.body.getReader();
  res.once('close', () => void reader.cancel().catch(() => {}));
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!res.write(value)) await new Promise((resolve) => res.once('drain', resolve));
    }
    res.end();
  } catch {
    res.destroy();
  }
}

/**
 * A middleware that answers `POST`/`GET`… requests to exactly `path` (the query aside) with
 * `handler`, and passes every other request to `next`.
 * @example
 * createServer((req, res) => mountWebHandler('/agent/v1/chat/completions', handler)(req, res, () => res.writeHead(404).end()));
 */
export function mountWebHandler(path: string, handler: WebHandler): Middleware {
  return mountWhere((pathname) => pathname === path, handler);
}

/**
 * A middleware that answers every request to `prefix` or below it (`/agent`, `/agent/sessions/…`)
 * with `handler`, and passes every other request to `next`.
 * @example
 * server.middlewares.use(mountWebHandlerUnder('/agent', createAgentHandler(options)));
 */
export function mountWebHandlerUnder(prefix: string, handler: WebHandler): Middleware {
  return mountWhere((pathname) => pathname === prefix || pathname.startsWith(`${prefix}/`), handler);
}

function mountWhere(matches: (pathname: string) => boolean, handler: WebHandler): Middleware {
  return (req, res, next) => {
    if (!matches((req.url ?? '').split('?')[0] ?? '')) return next();
    const abort = new AbortController();
    res.once('close', () => {
      if (!res.writableFinished) abort.abort();
    });
    handler(toRequest(req, abort.signal))
      .then((response) => send(response, res))
      .catch(() => {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { code: 'INTERNAL_ERROR', message: 'the handler failed' } }));
      });
  };
}
