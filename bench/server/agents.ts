/**
 * The agents the server bench runs: an `OpenAIProvider` on the bench's model server, and one
 * `Agent` per open session built the way an app's `agent` factory does (the user's session
 * storage, the instance's session lock). The in-process side of every comparison is built by the
 * same factory, so both sides run the same agent.
 * @module
 */
import OpenAI from 'openai';
import {
  AgentBuilder,
  InMemorySessionStorage,
  type Agent,
  type LockLease,
  type LockMode,
  type ModelInfo,
  type SessionLock,
  type SessionStorage,
} from '../../src/index.js';
import { OpenAIProvider } from '../../src/openai.js';

/** Where an instance keeps sessions: one storage per user, and the instance's lock (if any). */
export interface AgentWorld {
  storageFor(userId: string): SessionStorage;
  lock: SessionLock | null;
}

/** One `InMemorySessionStorage` per user (namespace = the user's id), no lock. */
export function inMemoryWorld(): AgentWorld {
  const storages = new Map<string, SessionStorage>();
  return {
    lock: null,
    storageFor(userId) {
      let storage = storages.get(userId);
      if (!storage) storages.set(userId, (storage = new InMemorySessionStorage({ namespace: userId })));
      return storage;
    },
  };
}

/** A model of the bench's model server (a window large enough that nothing compacts). */
const benchModel = (id: string): ModelInfo => ({
  id,
  displayName: id,
  contextWindow: 1_000_000,
  capabilities: { toolUse: true, vision: false, streaming: true },
});

/**
 * The provider of every agent of one process, serving `modelIds` from the model server at
 * `baseURL`. With `sdkClient`, requests go through an `openai` SDK client instead of the
 * provider's own `fetch` client (the default an app gets).
 */
export function benchProvider(
  baseURL: string,
  modelIds: readonly string[],
  sdkClient = false,
): OpenAIProvider {
  const models = modelIds.map(benchModel);
  if (sdkClient) {
    return new OpenAIProvider({ models, client: new OpenAI({ baseURL, apiKey: 'sk-bench', maxRetries: 0 }) });
  }
  return new OpenAIProvider({ baseURL, apiKey: 'sk-bench', models });
}

/** The `agent` option of a handler (and the in-process side's factory). */
export function agentFactory(
  provider: OpenAIProvider,
  world: AgentWorld,
): (scope: { userId: string }) => Promise<Agent> {
  return ({ userId }) => {
    let builder = new AgentBuilder({ defaultModel: provider.models[0]!.id })
      .registerModelProvider(provider)
      .registerSessionStorage(world.storageFor(userId));
    if (world.lock) builder = builder.registerSessionLock(world.lock);
    return builder.build();
  };
}

/** What a {@link countingLock} saw. */
export interface LockCounts {
  /** `acquire(…, 'steal')` calls: take-overs of a session another instance held. */
  steals: number;
  /** Leases of this instance another one took away. */
  lost: number;
}

/** `lock`, counting take-overs in `counts`. */
export function countingLock(lock: SessionLock, counts: LockCounts): SessionLock {
  return {
    ...(lock.changes && { changes: lock.changes }),
    async acquire(sessionId: string, mode: LockMode, signal?: AbortSignal): Promise<LockLease | null> {
      if (mode === 'steal') counts.steals++;
      const lease = await lock.acquire(sessionId, mode, signal);
      void lease?.lost.then(() => counts.lost++);
      return lease;
    },
  };
}
