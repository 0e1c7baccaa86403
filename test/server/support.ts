/**
 * The server tests' set-up: an agent factory over a pluggable storage (one `SessionStorage` per
 * user, whose `namespace` is the user's id) and lock, a handler on real HTTP (node:http +
 * `toNodeListener` on 127.0.0.1, port 0), and a `RemoteAgent` per user. A test gets the in-memory
 * world by default; `world` can be any other (the PostgreSQL one, after the merge), so the same
 * tests run on it.
 * @module
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach } from 'vitest';
import * as z from 'zod/mini';
import {
  InMemorySessionStorage,
  defineTool,
  type Agent,
  type AgentConfig,
  type ModelProvider,
  type Plugin,
  type SessionLock,
  type SessionStorage,
  type ToolHandler,
} from '../../src/index.js';
import { RemoteAgent } from '../../src/remote.js';
import { createAgentHandler, toNodeListener, type AgentHandlerOptions } from '../../src/server.js';
import { createTestAgent } from '../support/agent.js';

/** Where the sessions live: the storage of each user. */
export interface StorageWorld {
  storageFor(userId: string): SessionStorage;
}

/** One `InMemorySessionStorage` per user (namespace = the user's id), shared by every instance built on it. */
export function inMemoryWorld(): StorageWorld & { storages: Map<string, InMemorySessionStorage> } {
  const storages = new Map<string, InMemorySessionStorage>();
  return {
    storages,
    storageFor(userId) {
      let storage = storages.get(userId);
      if (!storage) storages.set(userId, (storage = new InMemorySessionStorage({ namespace: userId })));
      return storage;
    },
  };
}

/**
 * The storage every server test runs on: in memory here. The one place to point the same tests at
 * another storage (PostgreSQL after the merge): return that world instead.
 */
export function testWorld(): StorageWorld & { storages?: Map<string, InMemorySessionStorage> } {
  return inMemoryWorld();
}

/** What the agents of a handler are built with. */
export interface FactoryOptions {
  provider: ModelProvider;
  world?: StorageWorld;
  lock?: SessionLock | null;
  tools?: ToolHandler[];
  plugins?: Plugin[];
  config?: Partial<AgentConfig>;
}

/** The `agent` option of a handler: one agent per open session, on the user's storage. */
export function agentFactory(options: FactoryOptions): (scope: { userId: string }) => Promise<Agent> {
  const world = options.world ?? testWorld();
  return async ({ userId }) =>
    (
      await createTestAgent({
        provider: options.provider,
        sessionStorage: world.storageFor(userId),
        ...(options.lock !== undefined && { lock: options.lock }),
        ...(options.tools && { tools: options.tools }),
        ...(options.plugins && { plugins: options.plugins }),
        ...(options.config && { config: options.config }),
      })
    ).agent;
}

/** `authorization: Bearer <userId>` is that user; anything else is nobody. */
export function bearerAuthorize(request: Request): { userId: string } | null {
  const match = /^Bearer ([a-z0-9-]{1,40})$/.exec(request.headers.get('authorization') ?? '');
  return match ? { userId: match[1]! } : null;
}

/** A handler on real HTTP. */
export interface RunningServer {
  /** `http://127.0.0.1:<port>`. */
  origin: string;
  /** The origin plus the base path. */
  url: string;
  server: Server;
  close(): Promise<void>;
}

/** Serves `handler` on 127.0.0.1 (port 0). */
export async function serve(
  handler: (request: Request) => Promise<Response>,
  basePath = '/agent',
): Promise<RunningServer> {
  const server = createServer(toNodeListener(handler));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  return {
    origin,
    url: `${origin}${basePath}`,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A handler with test defaults (bearer authorization), served. */
export async function startHandler(
  factory: FactoryOptions,
  options: Partial<AgentHandlerOptions> = {},
): Promise<RunningServer> {
  const handler = createAgentHandler({
    agent: agentFactory(factory),
    authorize: bearerAuthorize,
    ...options,
  });
  return serve(handler, options.basePath ?? '/agent');
}

/** The remote agent of `userId` on `url`. */
export function remoteFor(url: string, userId: string, fetchFn?: typeof fetch): RemoteAgent {
  return new RemoteAgent({
    url,
    headers: { authorization: `Bearer ${userId}` },
    ...(fetchFn && { fetch: fetchFn }),
  });
}

/** The servers a test file starts, each closed after its test. */
export function serversClosedAfterEach(): RunningServer[] {
  const servers: RunningServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });
  return servers;
}

/** A mutating tool that needs approval: `transfer({ amount })` answers `moved <amount>`. */
export const transferTool = defineTool({
  name: 'transfer',
  description: 'Moves money',
  parameters: z.object({ amount: z.number() }),
  mutating: true,
  needsApproval: true,
  execute: async ({ arguments: { amount } }) => `moved ${amount}`,
});
