/**
 * {@link FreezingProxy}: a TCP proxy (node:net) on 127.0.0.1 that can stop forwarding without
 * closing anything, as a network partition does: open connections stay open and go silent, new
 * ones are accepted and never reach the server. Not a refused connection: nothing errors, the
 * client just waits.
 * @module
 */
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';

/** A proxy to one port that forwards until {@link freeze}. */
export class FreezingProxy {
  #frozen = false;
  /** Connections accepted while frozen (they never reach the server). */
  acceptedWhileFrozen = 0;
  readonly #sockets = new Set<Socket>();

  private constructor(
    private readonly server: Server,
    /** The port to connect to instead of the target's. */
    readonly port: number,
  ) {}

  /** A proxy to `127.0.0.1:targetPort`. */
  static async start(targetPort: number): Promise<FreezingProxy> {
    let proxy!: FreezingProxy;
    const server = createServer((client) => proxy.#pipe(client, targetPort));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    proxy = new FreezingProxy(server, (server.address() as AddressInfo).port);
    return proxy;
  }

  /** From now on nothing passes, either way, on any connection (old or new). */
  freeze(): void {
    this.#frozen = true;
  }

  /** Forwards again (connections accepted while frozen stay silent: they were never connected). */
  thaw(): void {
    this.#frozen = false;
  }

  /** Destroys every connection open now (new ones are still accepted). */
  cut(): void {
    for (const socket of this.#sockets) socket.destroy();
    this.#sockets.clear();
  }

  /** Destroys every connection and stops listening. */
  close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  #pipe(client: Socket, targetPort: number): void {
    this.#sockets.add(client);
    client.on('error', () => client.destroy());
    if (this.#frozen) {
      this.acceptedWhileFrozen++;
      return; // Accepted, never forwarded.
    }
    const upstream = connect(targetPort, '127.0.0.1');
    this.#sockets.add(upstream);
    upstream.on('error', () => upstream.destroy());
    const drop = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('close', drop);
    upstream.on('close', drop);
    client.on('data', (chunk) => {
      if (!this.#frozen) upstream.write(chunk);
    });
    upstream.on('data', (chunk) => {
      if (!this.#frozen) client.write(chunk);
    });
  }
}
