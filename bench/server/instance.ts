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
import { createServer } from 'node:http';
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
import { postgresWorld } from './postgres-world.js';

const config = JSON.parse(process.argv[2] ?? '{}') as InstanceConfig;
const counts: LockCounts = { steals: 0, lost: 0 };
const pg = config.postgres ? postgresWorld(config.postgres) : null;
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
});
const server = createServer(toNodeListener(handler));
server.keepAliveTimeout = 30_000;
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  process.send!({ type: 'ready', url: `http://127.0.0.1:${port}/agent` });
});

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
    case 'counts':
      return { ...counts };
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
