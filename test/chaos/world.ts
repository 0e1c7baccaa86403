/**
 * The chaos tests' world: instances as child processes (`instance-process.ts`) that the test
 * SIGKILLs, a scripted Chat Completions server with counters, and a TCP proxy that routes each
 * new connection to the first instance still alive, as a load balancer with health checks does.
 * Every wait is bounded.
 * @module
 */
import { fork, type ChildProcess } from 'node:child_process';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import type { ServerResponse } from 'node:http';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import { ChatCompletionsServer, sseEvent, startSse } from '../support/chat-completions-server.js';
import type { ChaosInstanceConfig } from './instance-process.js';

const ENTRY = fileURLToPath(new URL('./instance-process.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** `promise`, or a rejection naming `what` after `ms`. */
export function within<T>(promise: Promise<T>, what: string, ms = 20_000): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: nothing after ${ms} ms`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** Asks `check` every 50 ms until it answers something truthy; gives up after `ms`. */
export async function eventually<T>(check: () => Promise<T | null | undefined | false>, what: string, ms = 20_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > until) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** One instance process. */
export interface ChaosInstance {
  name: string;
  port: number;
  /** Resolves when a tool's first execution of `callId` started in this process. */
  toolStarted(callId: string): Promise<void>;
  /** SIGKILL: nothing is released, nothing more is written. */
  kill(): Promise<void>;
  /** `handler.close({ timeoutMs: 0 })`, as a deploy's SIGTERM handler would, then exit. */
  close(): Promise<void>;
}

/** Starts instance `name`; resolves once it listens. */
export async function startInstance(config: Omit<ChaosInstanceConfig, 'name'>, name: string): Promise<ChaosInstance> {
  const child: ChildProcess = fork(ENTRY, [JSON.stringify({ ...config, name })], {
    cwd: ROOT,
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const started = new Set<string>();
  const waiting = new Map<string, () => void>();
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.on('message', (message: { type?: string; callId?: string }) => {
    if (message.type !== 'tool-started' || !message.callId) return;
    started.add(message.callId);
    waiting.get(message.callId)?.();
  });
  const port = await within(
    new Promise<number>((resolve, reject) => {
      child.once('exit', (code) => reject(new Error(`instance ${name} exited with ${code}`)));
      child.on('message', (message: { type?: string; port?: number }) => {
        if (message.type === 'ready') resolve(message.port!);
      });
    }),
    `instance ${name} starts`,
    60_000,
  ).catch((error: unknown) => {
    child.kill('SIGKILL');
    throw error;
  });
  return {
    name,
    port,
    toolStarted: (callId) =>
      started.has(callId) ? Promise.resolve() : new Promise<void>((resolve) => waiting.set(callId, resolve)),
    kill: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await within(exited, `instance ${name} dies`);
    },
    close: async () => {
      const closed = new Promise<void>((resolve) =>
        child.on('message', (message: { type?: string }) => message.type === 'closed' && resolve()),
      );
      child.send({ type: 'close' });
      await within(closed, `instance ${name} closes`);
      child.kill('SIGKILL');
      await within(exited, `instance ${name} exits`);
    },
  };
}

/** A TCP proxy that sends each new connection to the first live target. */
export class RoutingProxy {
  readonly #sockets = new Set<Socket>();
  private constructor(
    private readonly server: Server,
    readonly origin: string,
    private readonly targets: () => readonly number[],
  ) {}

  static async start(targets: () => readonly number[]): Promise<RoutingProxy> {
    let proxy!: RoutingProxy;
    const server = createServer((client) => proxy.#route(client, 0));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    proxy = new RoutingProxy(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`, targets);
    return proxy;
  }

  #route(client: Socket, index: number): void {
    const port = this.targets()[index];
    if (port === undefined) return void client.destroy();
    const upstream = connect(port, '127.0.0.1');
    let connected = false;
    upstream.once('connect', () => {
      connected = true;
      this.#sockets.add(client).add(upstream);
      client.pipe(upstream).pipe(client);
    });
    upstream.on('error', () => {
      if (!connected) return this.#route(client, index + 1);
      client.destroy();
    });
    client.on('error', () => upstream.destroy());
    const forget = () => {
      this.#sockets.delete(client);
      this.#sockets.delete(upstream);
      client.destroy();
      upstream.destroy();
    };
    upstream.once('close', () => connected && forget());
    client.once('close', forget);
  }

  async close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** What the scripted model did. */
export interface ModelCounters {
  requests: number;
  /** Output characters it streamed, over every request. */
  outputChars: number;
}

/** A held answer: `hold` streams its first part, then waits until `release()`. */
export interface Hold {
  release(): void;
}

const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
  sseEvent({ id: 'chatcmpl-chaos', object: 'chat.completion.chunk', model: 'chaos-model', choices: [{ index: 0, delta, finish_reason: finish }] });

/**
 * The scripted model: from the last user message `<verb> <n>`: `tool <name> <n>` calls tool
 * `name` once (call id `<name>-<n>`), then answers; `hold <n>` streams `part one` and waits for
 * the test to release it before `part two`. Any other message is answered at once.
 */
export async function startModel(): Promise<{ server: ChatCompletionsServer; counters: ModelCounters; hold: Hold }> {
  const server = await ChatCompletionsServer.start();
  const counters: ModelCounters = { requests: 0, outputChars: 0 };
  let released!: () => void;
  const held = new Promise<void>((resolve) => (released = resolve));
  const text = async (res: ServerResponse, parts: string[], waitAfterFirst: boolean) => {
    for (const [i, part] of parts.entries()) {
      counters.outputChars += part.length;
      res.write(chunk({ content: part }));
      if (i === 0 && waitAfterFirst) await held;
    }
    res.write(chunk({}, 'stop'));
    res.end('data: [DONE]\n\n');
  };
  server.respondWith(async (_req, res, body) => {
    counters.requests++;
    startSse(res);
    const messages = body.messages as { role: string; content?: unknown }[];
    const lastUser = [...messages].reverse().find((m) => m.role === 'user');
    const [verb, a = '', b = ''] = String(typeof lastUser?.content === 'string' ? lastUser.content : JSON.stringify(lastUser?.content)).replace(/[^\w ]/g, ' ').trim().split(/\s+/).slice(-3);
    const answered = messages.some((m) => m.role === 'tool');
    if (verb === 'tool' && !answered) {
      res.write(
        chunk({ tool_calls: [{ index: 0, id: `${a}-${b}`, type: 'function', function: { name: a, arguments: JSON.stringify({ n: Number(b) }) } }] }),
      );
      res.write(chunk({}, 'tool_calls'));
      res.end('data: [DONE]\n\n');
      return;
    }
    if (verb === 'hold') return text(res, ['part one', ' part two'], true);
    await text(res, ['all ', 'done'], false);
  });
  return { server, counters, hold: { release: () => released() } };
}

/** How many times each call's tool was executed, from the instances' shared table. */
export async function toolRuns(observer: pg.Pool): Promise<Record<string, number>> {
  const { rows } = await observer.query<{ call_id: string; n: string }>(
    `SELECT call_id, count(*) AS n FROM chaos_runs GROUP BY call_id`,
  ).catch(() => ({ rows: [] as { call_id: string; n: string }[] }));
  return Object.fromEntries(rows.map((row) => [row.call_id, Number(row.n)]));
}
