/**
 * One server instance, run as its own process by `instance-process.ts`: `createAgentHandler`
 * mounted with `toNodeListener` on 127.0.0.1 (a free port), its agents on the bench's model
 * server, sessions in memory or in PostgreSQL. It says `{ type: 'ready', url }` over IPC, then
 * answers the parent's requests: `memory` (heap and RSS after a full GC), `local` (the same turns
 * run by in-process agents, no HTTP), `cpu` (its CPU time so far), `counts` (take-overs) and
 * `stop`.
 *
 * Run: `node --import tsx --expose-gc bench/server/instance.ts '<InstanceConfig as JSON>'`.
 * @module
 */
import { writeFileSync } from 'node:fs';
import { createServer, ServerResponse, type IncomingMessage } from 'node:http';
import { Session as InspectorSession } from 'node:inspector/promises';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { createAgentHandler, toNodeListener } from '../../src/server.js';
import {
  agentFactory,
  benchProvider,
  countingLock,
  inMemoryWorld,
  type AgentWorld,
  type LockCounts,
} from './agents.js';
import { driveSessions } from './drive.js';
import { fullGc } from './gc.js';
import type { InstanceConfig, InstanceRequest } from './instance-protocol.js';

const config = JSON.parse(process.argv[2] ?? '{}') as InstanceConfig;
const counts: LockCounts = { steals: 0, lost: 0 };
// Imported only when used: the baseline (`--baseline`) runs this harness on an older source tree,
// which may not have these modules.
const pg = config.postgres ? (await import('./postgres-world.js')).postgresWorld(config.postgres) : null;
const world: AgentWorld = pg
  ? { ...pg.world, lock: pg.world.lock && countingLock(pg.world.lock, counts) }
  : inMemoryWorld();
const provider = benchProvider(config.modelBaseURL, config.modelIds, config.sdkClient);
const factory = agentFactory(provider, world);
const handler = createAgentHandler({
  agent: factory,
  authorize: (request) => {
    const match = /^Bearer (u[0-9]{1,6})$/.exec(request.headers.get('authorization') ?? '');
    return match ? { userId: match[1]! } : null;
  },
  idleTimeoutMs: config.idleTimeoutMs,
  maxOpenSessions: config.maxOpenSessions,
  ...(config.maxRunningTurns !== undefined && { maxRunningTurns: config.maxRunningTurns }),
  ...(config.maxStreamBufferBytes !== undefined && { maxStreamBufferBytes: config.maxStreamBufferBytes }),
});
const listener = toNodeListener(handler);
// Every write to a response, counted (socket writes per delta).
let writes = 0;
const write = ServerResponse.prototype.write;
ServerResponse.prototype.write = function (this: ServerResponse, ...args: Parameters<typeof write>) {
  writes++;
  return write.apply(this, args);
} as typeof write;
// Why each event stream closed, and how many are open (the slow-client part).
const streamCloses: Record<string, number> = {};
let openStreams = 0;
const sse = await import('../../src/server/sse-writer.js').catch(() => null);
if (sse)
  sse.sseWriterSettings.onOpen = (writer) => {
    openStreams++;
    void writer.closed.then((reason) => {
      openStreams--;
      streamCloses[reason] = (streamCloses[reason] ?? 0) + 1;
    });
  };
const server = createServer((req, res) => {
  if (req.url?.startsWith('/plain')) void plainRoute(req, res);
  else listener(req, res);
});
server.keepAliveTimeout = 30_000;
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  process.send!({ type: 'ready', url: `http://127.0.0.1:${port}/agent` });
});

/**
 * The floor: a plain streaming route with no agent. `GET /plain?model=…&tag=…` asks the model
 * server for the same answer and writes each of its deltas at once as the AI SDK's UI message
 * stream frame (`data: {"type":"text-delta","id":"0","delta":…}`).
 */
async function plainRoute(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url!, 'http://127.0.0.1');
  const upstream = await fetch(`${config.modelBaseURL}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      model: url.searchParams.get('model'),
      stream: true,
      messages: [{ role: 'user', content: url.searchParams.get('tag') }],
    }),
  });
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' });
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const part of upstream.body! as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(part, { stream: true });
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const line = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      if (!line.startsWith('data: {')) continue;
      const chunk = JSON.parse(line.slice(6)) as { choices: { delta?: { content?: string } }[] };
      const delta = chunk.choices[0]?.delta?.content;
      if (delta) res.write(`data: ${JSON.stringify({ type: 'text-delta', id: '0', delta })}\n\n`);
    }
  }
  res.end('data: [DONE]\n\n');
}

const profiler = new InspectorSession();

/** This process's CPU time so far (user + system), in ms. */
function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

async function answer(request: InstanceRequest): Promise<unknown> {
  switch (request.type) {
    case 'memory': {
      await fullGc();
      const { heapUsed, rss } = process.memoryUsage();
      return { heapUsed, rss };
    }
    case 'local': {
      const { sessions, turns, deltas, modelId, tag } = request;
      return driveSessions(
        async (i) => {
          const agent = await factory({ userId: `u${i % 10}` });
          const session = await agent.newSession({ modelId });
          if (request.watch) session.conversation.subscribe(() => {});
          return {
            sendMessage: (text) => session.sendMessage(text),
            close: async () => {
              await session.close();
              await agent.shutdown();
            },
          };
        },
        { sessions, turns, deltas, tag, probe: async () => [cpuMs()] },
      );
    }
    case 'cpu':
      return cpuMs();
    case 'writes':
      return writes;
    case 'streams':
      return { ...streamCloses, open: openStreams };
    case 'counts':
      return { ...counts };
    case 'profile':
      if (request.start) {
        profiler.connect();
        await profiler.post('Profiler.enable');
        await profiler.post('Profiler.start');
      } else {
        const { profile } = await profiler.post('Profiler.stop');
        writeFileSync(join(request.dir, `${request.name}.cpuprofile`), JSON.stringify(profile));
        profiler.disconnect();
      }
      return null;
    case 'stop':
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await pg?.close();
      setTimeout(() => process.exit(0), 10);
      return null;
  }
}

process.on('message', (message: InstanceRequest & { id: number }) => {
  answer(message).then(
    (value) => process.send!({ id: message.id, ok: true, value }),
    (error: unknown) => process.send!({ id: message.id, ok: false, error: String(error) }),
  );
});
// The parent went away: nothing else would end this process.
process.on('disconnect', () => process.exit(0));
