/**
 * The built demo, served on 127.0.0.1: `vite build` with the demo's own config into a temporary
 * folder, then a static file server on a free port.
 * @module
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';

const DEMO_CONFIG = fileURLToPath(new URL('../../../demo/vite.config.ts', import.meta.url));

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json',
  '.svg': 'image/svg+xml',
};

/** A running copy of the built demo. */
export interface ServedDemo {
  /** e.g. `http://127.0.0.1:41234` */
  readonly origin: string;
  close(): Promise<void>;
}

/** Builds the demo and serves the build; `close()` stops the server and deletes the build. */
export async function serveBuiltDemo(): Promise<ServedDemo> {
  const dir = await mkdtemp(join(tmpdir(), 'youyou-demo-e2e-'));
  await build({ configFile: DEMO_CONFIG, logLevel: 'warn', build: { outDir: dir, emptyOutDir: true } });
  const server = createServer((request, response) => {
    void (async () => {
      const path = new URL(request.url ?? '/', 'http://127.0.0.1').pathname;
      const file = normalize(join(dir, path === '/' ? 'index.html' : path));
      if (!file.startsWith(dir)) return void response.writeHead(404).end();
      try {
        const body = await readFile(file);
        response
          .writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' })
          .end(body);
      } catch {
        response.writeHead(404).end();
      }
    })();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await rm(dir, { recursive: true, force: true });
    },
  };
}
