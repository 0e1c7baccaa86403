/**
 * `toNodeListener` under backpressure: a response that waits for `drain` many times keeps its
 * listener counts as they were (each wait removes both of its listeners, whichever fired).
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { toNodeListener } from '../../src/server.js';

const DRAINS = 10_000;
/** Socket buffers this small make every chunk below wait for `drain`. */
const HIGH_WATER = 1024;

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

describe('toNodeListener', () => {
  it(`leaves the listener counts of a response as they were after ${DRAINS} drains`, async () => {
    let response!: ServerResponse;
    const counts: { before?: [number, number]; after?: [number, number] } = {};
    const count = (): [number, number] => [response.listenerCount('drain'), response.listenerCount('close')];
    const chunk = new Uint8Array(HIGH_WATER * 2).fill(120);
    let sent = 0;
    const listener = toNodeListener(async () => {
      return new Response(
        new ReadableStream<Uint8Array>(
          {
            pull(controller) {
              // The first pull comes once the headers are written: the counts before any drain.
              if (sent === 0) counts.before = count();
              if (sent === DRAINS) {
                counts.after = count();
                controller.close();
                return;
              }
              sent++;
              controller.enqueue(chunk);
            },
          },
          { highWaterMark: 0 },
        ),
      );
    });
    const server = createServer({ highWaterMark: HIGH_WATER }, (req, res) => {
      response = res;
      listener(req, res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    closers.push(
      () =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    );
    const { port } = server.address() as AddressInfo;
    const answer = await fetch(`http://127.0.0.1:${port}/`);
    let received = 0;
    for await (const part of answer.body!) received += (part as Uint8Array).byteLength;
    expect(received).toBe(DRAINS * chunk.byteLength);
    expect(counts.after).toEqual(counts.before);
  });
});
