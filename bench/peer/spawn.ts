/**
 * The peer bench's child processes: the model server, and one fresh `node` per measured side.
 * Every child is plain `node` on the built scripts (see `build.ts`), with no loader.
 * @module
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { builtScript } from './build.js';

/** The running model server. */
export interface ModelServer {
  baseURL: string;
  stop(): void;
}

/** Starts the model server in its own process and waits until it listens on 127.0.0.1. */
export async function startModelServer(): Promise<ModelServer> {
  const server = spawn(process.execPath, [builtScript('model-server')], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    const lines = createInterface({ input: server.stdout });
    lines.once('line', (line) => {
      const match = /^listening (\d+)$/.exec(line);
      if (match) resolve(Number(match[1]));
      else reject(new Error(`model server: unexpected output ${JSON.stringify(line)}`));
    });
    server.once('error', reject);
    server.once('exit', (code) => reject(new Error(`model server exited with code ${code}`)));
  });
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    stop: () => server.kill(),
  };
}

/** Runs `bench/peer/processes/<script>.ts` (built) in a fresh process; resolves with the JSON line it prints. */
export function runProcess<T>(script: string, args: readonly string[]): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [builtScript(script), ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text));
    child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
    child.once('error', reject);
    child.once('exit', (code) => {
      const last = stdout.trim().split('\n').at(-1);
      if (code === 0 && last) resolve(JSON.parse(last) as T);
      else reject(new Error(`${script} ${args.join(' ')} exited with code ${code}\n${stderr}`));
    });
  });
}
