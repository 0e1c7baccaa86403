/**
 * Starting a server instance (`instance.ts`) as a process of its own, so its heap, RSS and CPU
 * are its own, and talking to it over IPC. Every wait is bounded.
 * @module
 */
import { fork, type ChildProcess } from 'node:child_process';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { InstanceConfig, InstanceRequest } from './instance-protocol.js';

const ENTRY = fileURLToPath(new URL('./instance.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const START_MS = 60_000;
const REQUEST_MS = 300_000;

/** A running instance process. */
export interface InstanceProcess {
  /** The handler's URL (origin + `/agent`), for `RemoteAgent`. */
  url: string;
  request<T>(request: InstanceRequest): Promise<T>;
  /** Stops the process (killed if it does not end by itself within 5 s). */
  stop(): Promise<void>;
}

/**
 * Starts an instance with `config`; resolves once it listens. `root` is the source tree it runs
 * (this one by default; the baseline's copy for `--baseline`).
 */
export async function startInstance(config: InstanceConfig, root = ROOT): Promise<InstanceProcess> {
  const child = fork(join(root, relative(ROOT, ENTRY)), [JSON.stringify(config)], {
    cwd: root,
    execArgv: [
      '--import',
      'tsx',
      '--expose-gc',
      ...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : []),
    ],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  let next = 0;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  void exited.then(() => {
    for (const { reject } of pending.values()) reject(new Error('the instance process exited'));
    pending.clear();
  });
  const url = await within<string>(START_MS, 'the instance did not start', (resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`the instance exited with ${code}`)));
    child.on('message', (message: { type?: string; url?: string }) => {
      if (message.type === 'ready') resolve(message.url!);
    });
  }).catch((error: unknown) => {
    child.kill('SIGKILL');
    throw error;
  });
  child.on('message', (message: { id?: number; ok?: boolean; value?: unknown; error?: string }) => {
    if (message.id === undefined) return;
    const waiting = pending.get(message.id);
    pending.delete(message.id);
    if (message.ok) waiting?.resolve(message.value);
    else waiting?.reject(new Error(message.error));
  });
  const request = <T>(body: InstanceRequest) =>
    within<T>(REQUEST_MS, `the instance did not answer ${body.type}`, (resolve, reject) => {
      const id = ++next;
      pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      child.send({ ...body, id });
    });
  return {
    url,
    request,
    stop: async () => {
      if (child.exitCode !== null) return;
      await request({ type: 'stop' }).catch(() => {});
      await within<void>(5_000, 'stop', (resolve) => void exited.then(resolve)).catch(() => kill(child));
    },
  };
}

function kill(child: ChildProcess): void {
  if (child.exitCode === null) child.kill('SIGKILL');
}

/** A promise that rejects after `ms` unless `executor` settles it first. */
function within<T>(
  ms: number,
  what: string,
  executor: (resolve: (value: T) => void, reject: (error: Error) => void) => void,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what} within ${ms} ms`)), ms);
    executor(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
