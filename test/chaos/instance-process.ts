/**
 * One server instance as a process of its own, for the chaos tests: a `pg` pool on the test's
 * database, a `PostgresSessionStorage` per user and one `PostgresSessionLock`, an
 * `OpenAIProvider` over real HTTP to the test's scripted model server, and the handler on
 * 127.0.0.1. The test SIGKILLs it. Its tools count their executions in a table of that database,
 * so a count survives the process: a tool's first execution of a call tells the test (IPC) and
 * then never ends, the way a call is cut off when its instance dies; later executions answer.
 *
 * Started as `node --import tsx instance-process.ts '<config json>'`.
 * @module
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import * as z from 'zod/mini';
import { AgentBuilder, defineTool } from '../../src/index.js';
import { OpenAIProvider } from '../../src/openai.js';
import { findInterruptedSessions, PostgresSessionLock, PostgresSessionStorage, pgClient } from '../../src/postgres.js';
import { createAgentHandler, toNodeListener } from '../../src/server.js';

/** How an instance is set up. */
export interface ChaosInstanceConfig {
  name: string;
  connection: pg.PoolConfig;
  schema: string;
  leaseMs: number;
  modelBaseURL: string;
  /** How often the recovery sweep runs, or `null` for recovery on request only. */
  sweepIntervalMs: number | null;
  /** `recovery.maxAttempts`; the handler's default when absent. */
  maxAttempts?: number;
}

const config = JSON.parse(process.argv[2]!) as ChaosInstanceConfig;
const pool = new pg.Pool({ ...config.connection, max: 8, application_name: `chaos-${config.name}` });
pool.on('error', () => {});
const sql = pgClient(pool);
const lock = new PostgresSessionLock({ sql, schema: config.schema, holderId: config.name, leaseMs: config.leaseMs });
const storages = new Map<string, PostgresSessionStorage>();
const storageFor = (userId: string) => {
  let storage = storages.get(userId);
  if (!storage) storages.set(userId, (storage = new PostgresSessionStorage({ sql, schema: config.schema, namespace: userId })));
  return storage;
};

// The test makes the table before it starts instances (two concurrent CREATE … IF NOT EXISTS may
// collide); this is for an instance started alone.
await pool
  .query(`CREATE TABLE IF NOT EXISTS chaos_runs (tool text NOT NULL, call_id text NOT NULL)`)
  .catch((error: { code?: string }) => {
    if (error.code !== '23505' && error.code !== '42P07') throw error;
  });

/** A tool whose executions are counted in `chaos_runs`; the first one of each call never ends. */
const counted = (
  name: string,
  options: { mutating: boolean; idempotent?: boolean; needsApproval?: boolean; answersFirst?: boolean },
) =>
  defineTool({
    name,
    description: `${name} (chaos test tool)`,
    parameters: z.object({ n: z.number() }),
    mutating: options.mutating,
    ...(options.idempotent !== undefined && { idempotent: options.idempotent }),
    ...(options.needsApproval && { needsApproval: true }),
    execute: async ({ callId }) => {
      const { rows } = await pool.query<{ runs: string }>(
        `WITH added AS (INSERT INTO chaos_runs (tool, call_id) VALUES ($1, $2) RETURNING 1)
         SELECT (SELECT count(*) FROM chaos_runs WHERE call_id = $2) + 1 AS runs`,
        [name, callId],
      );
      if (Number(rows[0]!.runs) === 1) {
        process.send?.({ type: 'tool-started', tool: name, callId, instance: config.name });
        if (options.answersFirst) return `${name} ran`;
        return new Promise<string>(() => {});
      }
      return `${name} ran`;
    },
  });

const tools = [
  counted('transfer', { mutating: true }),
  counted('upsert', { mutating: true, idempotent: true }),
  counted('lookup', { mutating: false }),
  // Asks for approval, then answers on its first execution (the instance dies while it waits).
  counted('payout', { mutating: true, needsApproval: true, answersFirst: true }),
];
const provider = new OpenAIProvider({
  baseURL: config.modelBaseURL,
  models: ['chaos-model'],
});

const handler = createAgentHandler({
  agent: ({ userId }) =>
    new AgentBuilder({ defaultModel: 'chaos-model', retry: { maxRetries: 0 } })
      .registerModelProvider(provider)
      .registerSessionStorage(storageFor(userId))
      .registerSessionLock(lock)
      .registerTool(tools[0]!)
      .registerTool(tools[1]!)
      .registerTool(tools[2]!)
      .registerTool(tools[3]!)
      .build(),
  authorize: (request) => {
    const user = /^Bearer ([a-z]+)$/.exec(request.headers.get('authorization') ?? '')?.[1];
    return user ? { userId: user } : null;
  },
  onError: () => {},
  recovery: {
    ...(config.sweepIntervalMs !== null && {
      find: () => findInterruptedSessions(sql, { schema: config.schema }),
      sweepIntervalMs: config.sweepIntervalMs,
    }),
    ...(config.maxAttempts !== undefined && { maxAttempts: config.maxAttempts }),
  },
});
const server = createServer(toNodeListener(handler));
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
process.send?.({ type: 'ready', port: (server.address() as AddressInfo).port });
// The test process is gone (it crashed, or was killed itself): no instance outlives it.
process.on('disconnect', () => process.exit(1));
process.on('message', (message: { type?: string }) => {
  if (message.type === 'close') {
    void handler.close({ timeoutMs: 0 }).then(() => process.send?.({ type: 'closed' }));
  }
});
