/**
 * `toNodeListener`: a web-standard handler on `node:http`. The request becomes a `Request` whose
 * `signal` aborts when the client goes away; the `Response` is written as it streams.
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * Adapts `handler` to `node:http`'s `(req, res)`.
 * @example
 * import { createServer } from 'node:http';
 * createServer(toNodeListener(createAgentHandler(options))).listen(3000, '127.0.0.1');
 */
export function toNodeListener(
  handler: (request: Request) => Promise<Response>,
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const controller = new AbortController();
    // The client went away before the answer ended.
    res.on('close', () => {
      if (!res.writableFinished) controller.abort();
    });
    void serve(handler, req, res, controller).catch(() => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({ error: { code: 'INTERNAL_ERROR', message: 'the server failed' } }),
      );
    });
  };
}

async function serve(
  handler: (request: Request) => Promise<Response>,
  req: IncomingMessage,
  res: ServerResponse,
  controller: AbortController,
): Promise<void> {
  const host = req.headers.host ?? 'localhost';
  const url = new URL(req.url ?? '/', `http://${host}`);
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else headers.set(name, value);
  }
  const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
  const request = new Request(url, {
    method: req.method ?? 'GET',
    headers,
    signal: controller.signal,
    ...(hasBody && { body: bodyOf(req), duplex: 'half' }),
  } as RequestInit);
  const response = await handler(request);
  // An answer given before the body was read (413, 401): drain what the client still sends, so
  // it can read the answer instead of a reset connection; bounded, then the connection closes.
  const unread = hasBody && !req.complete;
  if (unread) drain(req);
  const outHeaders: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    outHeaders[name] = value;
  });
  // The connection is not reused: what the client still sends of the body would come first.
  if (unread) outHeaders['connection'] = 'close';
  res.writeHead(response.status, outHeaders);
  if (!response.body) {
    res.end();
    return;
  }
  res.flushHeaders();
  const reader = response.body.getReader();
  controller.signal.addEventListener('abort', () => void reader.cancel().catch(() => {}));
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!res.write(value)) await drained(res);
      if (res.destroyed) break;
    }
  } catch {
    // The client went away, or the body failed (a stream that gave up on a slow client): the
    // connection is dropped, not ended, so nothing waits in its buffers for a client that may
    // never read them, and the client sees a broken stream, not a finished one.
    res.destroy();
  } finally {
    if (!res.destroyed) res.end();
  }
  if (res.destroyed) void reader.cancel().catch(() => {});
}

/**
 * Resolves on the response's next `drain` or its `close`, whichever comes first, and removes
 * both listeners then: one wait per backpressured write must leave nothing behind.
 */
function drained(res: ServerResponse): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => {
      res.off('drain', done).off('close', done);
      resolve();
    };
    res.on('drain', done).on('close', done);
  });
}

/**
 * The request body as a web stream (paused while the reader is behind). Cancelling it drains the
 * rest instead of resetting the connection, so the client still reads the answer.
 */
function bodyOf(req: IncomingMessage): ReadableStream<Uint8Array> {
  let open = true;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      req.on('data', (chunk: Buffer) => {
        if (!open) return;
        controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        if ((controller.desiredSize ?? 0) <= 0) req.pause();
      });
      req.on('end', () => open && ((open = false), controller.close()));
      req.on('error', (error) => open && ((open = false), controller.error(error)));
    },
    pull() {
      req.resume();
    },
    cancel() {
      open = false;
      drain(req);
    },
  });
}

/** The most of an unread body that is drained before the connection is dropped. */
const DRAIN_BYTES = 8 * 1024 * 1024;

function drain(req: IncomingMessage): void {
  let drained = 0;
  req.on('data', (chunk: Buffer) => {
    drained += chunk.length;
    if (drained > DRAIN_BYTES) req.destroy();
  });
  req.resume();
}
