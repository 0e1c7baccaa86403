/**
 * Truthful liveness across instances on one real PostgreSQL database: an instance that does not
 * hold a session reports its turn as running only while the holder's live lease runs it; once
 * the holder is gone (killed, its lease run out) the turn shows as interrupted, not streaming.
 * Recovery is off here: with it on, that read would start the turn's recovery instead
 * (`test/server/recovery.test.ts`).
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { SessionEvent } from '../../src/index.js';
import { pgClient, PostgresSessionStorage } from '../../src/postgres.js';
import type { SessionState } from '../../src/remote/wire.js';
import { useDatabase } from '../postgres/support/server.js';
import { remoteFor } from './support.js';
import { eventOf, eventually, instancesWorld } from './instances-world.js';
import { startInstance, type Instance } from './postgres-instances.js';

const database = useDatabase();
const observer = database.pool({ application_name: 'observer' });
const running: Instance[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((i) => i.server.close()));
});
afterAll(() => observer.end());

async function stateOn(instance: Instance, sessionId: string): Promise<SessionState> {
  const response = await fetch(`${instance.server.url}/sessions/${sessionId}`, {
    headers: { authorization: 'Bearer alice' },
  });
  expect(response.status).toBe(200);
  return (await response.json()) as SessionState;
}

describe('liveness seen from an instance that does not hold the session', () => {
  it('a turn shows as running while its lease is live, and as interrupted once its holder is gone', async () => {
    const world = instancesWorld();
    const shared = { database, observer, schema: 'liveness_1', provider: world.provider, tools: [world.transfer], handler: { recovery: false as const } };
    const a = await startInstance('A', { ...shared, leaseMs: 1_500 });
    const b = await startInstance('B', shared);
    running.push(a, b);
    const session = await remoteFor(a.server.url, 'alice').newSession();
    const turn = await session.sendMessage('hang 1');
    await eventOf(turn, 'text_delta');
    const live = await eventually(async () => {
      const state = await stateOn(b, session.id);
      return state.conversation.turn?.status === 'running' ? state : null;
    });
    expect(live.conversation.turn?.id).toBe(live.interruptedTurn?.turnId);

    await a.crash();
    // The lease runs out: the same read now shows the turn interrupted, nothing streaming.
    const gone = await eventually(async () => {
      const state = await stateOn(b, session.id);
      return state.conversation.turn === null ? state : null;
    });
    expect(gone.interruptedTurn?.turnId).toBe(live.conversation.turn?.id);
    expect(gone.conversation.items.some((item) => 'status' in item && item.status === 'streaming')).toBe(false);
    world.hold('1').resolve();
  });

  it('a turn cut off before its holder resumed the session idle shows as interrupted, not running', async () => {
    const world = instancesWorld();
    const schema = 'liveness_2';
    const shared = { database, observer, schema, provider: world.provider, tools: [world.transfer], handler: { recovery: false as const } };
    const a = await startInstance('A', shared);
    const b = await startInstance('B', shared);
    running.push(a, b);
    // A session whose history ends in a turn that started and never ended (its instance died).
    const storage = new PostgresSessionStorage({ sql: pgClient(observer), schema, namespace: 'alice' });
    const at = new Date().toISOString();
    const events: SessionEvent[] = [
      { timestamp: at, payload: { type: 'metadata', key: 'session_owner', value: { userId: 'alice' } } },
      { timestamp: at, payload: { type: 'metadata', key: 'turn_started', value: { turnId: 't1' } } },
      { timestamp: at, payload: { type: 'user_message', content: [{ type: 'text', text: 'cut off' }] } },
    ];
    for (const event of events) await storage.saveEvent('s1', event);
    // A opens it (a read takes a free session) and holds it idle: no turn runs anywhere.
    expect((await stateOn(a, 's1')).interruptedTurn?.turnId).toBe('t1');
    const seen = await stateOn(b, 's1');
    expect(seen.interruptedTurn?.turnId).toBe('t1');
    expect(seen.conversation.turn).toBeNull();
  });
});
