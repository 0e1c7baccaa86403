/**
 * {@link CuttingProxy}: a TCP proxy (node:net) on 127.0.0.1 in front of an HTTP server that cuts
 * event streams: the n-th `text/event-stream` answer is cut after the number of bytes its plan
 * says, both sockets destroyed, as a dropped mobile connection or a proxy timeout does.
 * @module
 */
import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/** A proxy that cuts event streams by plan. */
export class CuttingProxy {
  /** Event-stream answers seen so far. */
  streams = 0;
  /** Streams cut so far. */
  cuts = 0;
  readonly #sockets = new Set<Socket>();

  private constructor(
    private readonly server: Server,
    /** `http://127.0.0.1:<port>`. */
    readonly origin: string,
    /** Bytes after which the n-th event stream is cut (`undefined`: not cut). */
    private readonly plan: (number | undefined)[],
  ) {}

  /** A proxy to `targetPort`, cutting the n-th event stream after `plan[n]` bytes. */
  static async start(targetPort: number, plan: (number | undefined)[]): Promise<CuttingProxy> {
    let proxy!: CuttingProxy;
    const server = createServer((client) => proxy.#pipe(client, targetPort));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    proxy = new CuttingProxy(server, `http://127.0.0.1:${port}`, plan);
    return proxy;
  }

  /** Cuts every open connection now. */
  cutAll(): void {
    for (const socket of this.#sockets) socket.destroy();
  }

  close(): Promise<void> {
    this.cutAll();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  #pipe(client: Socket, targetPort: number): void {
    const upstream = connect(targetPort, '127.0.0.1');
    this.#sockets.add(client).add(upstream);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      this.#sockets.delete(client);
      this.#sockets.delete(upstream);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.on('data', (chunk) => upstream.write(chunk));
    // Per answer on this connection: whether it is an event stream and the bytes it passed.
    let limit: number | undefined;
    let passed = 0;
    let head = '';
    upstream.on('data', (chunk: Buffer) => {
      if (limit === undefined && head.length < 4096) {
        head += chunk.toString('latin1');
        if (/^HTTP\/1\.1 \d+/.test(head) && /content-type: text\/event-stream/i.test(head)) {
          limit = this.plan[this.streams++] ?? Number.POSITIVE_INFINITY;
          head = 'x'.repeat(4096);
        }
      }
      if (limit !== undefined && passed + chunk.length > limit) {
        client.write(chunk.subarray(0, Math.max(0, limit - passed)));
        this.cuts++;
        drop();
        return;
      }
      passed += chunk.length;
      client.write(chunk);
    });
  }
}
