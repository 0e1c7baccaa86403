/**
 * A database that hangs under a holder (a TCP proxy that stops forwarding, not a refused
 * connection): the holder stops by its lease's `validUntil`, before another instance may take
 * the session over, and runs no tool after that.
 */
import { afterEach, describe, expect, inject, it } from 'vitest';
import * as z from 'zod/mini';
import { AgentBuilder, defineTool, type AgentEvent } from '../../src/index.js';
import { pgClient, PostgresSessionLock, PostgresSessionStorage } from '../../src/postgres.js';
import { reply, ScriptedModelProvider, SCRIPTED_MODEL, type ScriptStep } from '../../src/testing/index.js';
import { FreezingProxy } from '../support/freezing-proxy.js';
import { deferred } from '../support/waits.js';
import { useDatabase } from './support/server.js';

const database = useDatabase();
const LEASE_MS = 1_500;
const proxies: FreezingProxy[] = [];
afterEach(async () => {
  for (const proxy of proxies.splice(0)) await proxy.close();
});

/** A mutating tool that counts its runs, per instance. */
function transfer(runs: { count: number }) {
  return defineTool({
    name: 'transfer',
    description: 'Moves money',
    parameters: z.object({ amount: z.number() }),
    mutating: true,
    execute: async ({ arguments: { amount } }) => {
      runs.count++;
      return `moved ${amount}`;
    },
  });
}

function instance(sql: ReturnType<typeof pgClient>, schema: string, script: ScriptStep[], runs: { count: number }) {
  return new AgentBuilder({ defaultModel: SCRIPTED_MODEL.id, storageTimeoutMs: 2_000 })
    .registerModelProvider(new ScriptedModelProvider({ script }))
    .registerSessionStorage(new PostgresSessionStorage({ sql, schema }))
    // The default queryTimeoutMs (30 s): only the lease's own bound can stop the holder in time.
    .registerSessionLock(new PostgresSessionLock({ sql, schema, leaseMs: LEASE_MS }))
    .registerTool(transfer(runs))
    .build();
}

describe('a database that hangs under the holder', () => {
  it('lost settles by validUntil, and no tool starts on A after B took the expired lease', async () => {
    const schema = 'hung_1';
    const proxy = await FreezingProxy.start(inject('postgres').port);
    proxies.push(proxy);
    const throughProxy = database.pool({ port: proxy.port });
    const sqlA = pgClient(throughProxy);
    const direct = database.client();
    const hold = deferred();
    const runsA = { count: 0 };
    const runsB = { count: 0 };
    const a = await instance(
      sqlA,
      schema,
      [
        [
          { type: 'text_delta', text: 'moving ' },
          { type: 'wait', until: hold.promise },
          ...reply.toolCalls([{ name: 'transfer', arguments: { amount: 1 } }]),
        ],
        reply.text('moved'),
      ],
      runsA,
    );
    const session = await a.newSession();
    const events: AgentEvent[] = [];
    session.events.subscribe((e) => events.push(e));
    const turn = await session.sendMessage('move 1');
    const reader = new PostgresSessionStorage({ sql: direct.sql, schema });
    await expect
      .poll(async () => (await reader.loadSession(session.id))?.some((e) => e.payload.type === 'user_message'))
      .toBe(true);

    proxy.freeze();
    const frozenAt = Date.now();
    await expect.poll(() => events.some((e) => e.payload.type === 'session_lock_lost'), { timeout: 10_000 }).toBe(true);
    const lostAt = Date.now();
    // A cannot renew any more: its row's lease_until is what the database grants it, at most.
    const { rows } = await direct.pool.query<{ until: Date }>(
      `SELECT lease_until AS until FROM hung_1.locks WHERE session_id = $1`,
      [session.id],
    );
    const validUntil = rows[0]!.until.getTime();
    console.log(
      `hung database: lost ${lostAt - frozenAt} ms after the freeze, ${validUntil - lostAt} ms before the lease ran out`,
    );
    expect(lostAt).toBeLessThanOrEqual(validUntil);

    // B takes the expired lease; then A's model goes on to the mutating call.
    const b = await instance(
      direct.sql,
      schema,
      [reply.toolCalls([{ name: 'transfer', arguments: { amount: 1 } }]), reply.text('moved')],
      runsB,
    );
    let taken;
    for (let tries = 0; !taken && tries < 100; tries++) {
      taken = await b.resumeSession(session.id).catch(() => undefined);
      if (!taken) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(taken).toBeDefined();
    hold.resolve();
    const result = await turn.result;
    expect(result.status).not.toBe('completed');
    expect(runsA.count).toBe(0);
    expect(events.some((e) => e.payload.type === 'tool_call_start')).toBe(false);

    // B runs the call once: across both instances, the tool ran at most once.
    expect((await (await taken!.sendMessage('move 1 again')).result).status).toBe('completed');
    expect(runsA.count + runsB.count).toBe(1);
    await b.shutdown();
    await proxy.close();
    await a.shutdown();
  }, 30_000);
});
