/**
 * A turn survives its instance, with real processes: instances are child processes on one real
 * PostgreSQL database, reached over real HTTP through a proxy that sends each new connection to
 * the first instance alive (as a load balancer does), talking to a scripted Chat Completions
 * server through the real `openai` package. The test SIGKILLs the instance that runs a turn (or
 * closes it, as a deploy does) and checks what a user sees: the turn goes on on another
 * instance by itself, its result settles, the answer is whole, and no tool runs twice unless it
 * may (idempotent or read-only). Tool executions are counted in the database, so a count
 * survives the process that ran it. Take-over times are printed, one line per figure.
 */
import { afterAll, afterEach, describe, expect, inject, it } from 'vitest';
import type { AgentEvent, TurnResult } from '../../src/index.js';
import { RemoteAgent, type RemoteSession, type RemoteTurn } from '../../src/remote.js';
import { TOOL_OUTCOME_UNKNOWN_SERVER_TEXT } from '../../src/server/recovery.js';
import { useDatabase } from '../postgres/support/server.js';
import {
  expectCleanHistory,
  kindOf,
  recoveryRows,
  storedRows,
  type StoredRow,
} from '../server/postgres-instances.js';
import type { ChaosInstanceConfig } from './instance-process.js';
import {
  eventually,
  RoutingProxy,
  startInstance,
  startModel,
  toolRuns,
  within,
  type ChaosInstance,
} from './world.js';

const LEASE_MS = 1_500;
const SWEEP_MS = 200;
/** Bounds every scenario; the whole file stays well under 3 minutes. */
const TEST_MS = 60_000;

const database = useDatabase();
const observer = database.pool({ application_name: 'chaos-observer' });
const server = inject('postgres');
let schemas = 0;

/** What every test started, stopped after it whatever happened. */
const started: { instances: ChaosInstance[]; stops: (() => Promise<void>)[] } = { instances: [], stops: [] };
async function stopAll(): Promise<void> {
  await Promise.allSettled(started.instances.splice(0).map((instance) => instance.kill()));
  await Promise.allSettled(started.stops.splice(0).map((stop) => stop()));
}
afterEach(stopAll);
afterAll(async () => {
  await stopAll();
  await observer.end();
});

/** One figure, one line. */
function figure(name: string, ms: number): void {
  console.log(`[chaos] ${name}: ${Math.round(ms)} ms`);
}

/** A scripted model, instances `names` on a fresh schema, and the proxy in front of them. */
async function world(names: readonly string[], options: { maxAttempts?: number } = {}) {
  const model = await startModel();
  started.stops.push(() => model.server.close());
  await observer.query(`CREATE TABLE IF NOT EXISTS chaos_runs (tool text NOT NULL, call_id text NOT NULL)`);
  const config: Omit<ChaosInstanceConfig, 'name'> = {
    connection: {
      host: server.host,
      port: server.port,
      user: server.user,
      password: server.password,
      database: database.name,
    },
    schema: `chaos_${++schemas}`,
    leaseMs: LEASE_MS,
    modelBaseURL: model.server.baseURL,
    sweepIntervalMs: SWEEP_MS,
    ...(options.maxAttempts !== undefined && { maxAttempts: options.maxAttempts }),
  };
  const instances = await Promise.all(
    names.map(async (name) => {
      const instance = await startInstance(config, name);
      started.instances.push(instance);
      return instance;
    }),
  );
  const dead = new Set<string>();
  const proxy = await RoutingProxy.start(() => instances.filter((i) => !dead.has(i.name)).map((i) => i.port));
  started.stops.push(() => proxy.close());
  const byName = Object.fromEntries(instances.map((i) => [i.name, i]));
  return {
    schema: config.schema,
    model,
    proxy,
    url: `${proxy.origin}/agent`,
    instance: (name: string) => byName[name]!,
    /** SIGKILLs `name`; resolves with when it was killed, once it is gone. */
    async kill(name: string): Promise<number> {
      const at = Date.now();
      dead.add(name);
      await byName[name]!.kill();
      return at;
    },
    /** Closes `name` as a deploy does; resolves with when the close was asked, once it is gone. */
    async close(name: string): Promise<number> {
      const at = Date.now();
      // The load balancer stops sending it new connections as the deploy starts.
      dead.add(name);
      await byName[name]!.close();
      return at;
    },
    remote: () =>
      new RemoteAgent({
        url: `${proxy.origin}/agent`,
        headers: { authorization: 'Bearer alice' },
        requestTimeoutMs: 10_000,
      }),
  };
}

/** Who holds the session's lease now (a live lease), read from the lock table. */
async function holderOf(schema: string, sessionId: string): Promise<string | null> {
  const { rows } = await observer.query<{ holder: string }>(
    `SELECT holder FROM "${schema}".locks WHERE session_id = $1 AND lease_until > clock_timestamp()`,
    [sessionId],
  );
  return rows[0]?.holder ?? null;
}

/** A session of alice's with a turn started on `input`, its events timed as they arrive. */
async function turnOn(remote: RemoteAgent, input: string) {
  const session = await within(remote.newSession(), 'the session is created');
  const turn = await within(session.sendMessage(input), 'the turn starts');
  const seen = new Map<string, number>();
  const events: AgentEvent[] = [];
  turn.events.subscribe((event) => {
    events.push(event);
    if (!seen.has(event.payload.type)) seen.set(event.payload.type, Date.now());
  });
  return { session, turn, seen, events };
}

/** The first event of `turn` of type `type`. */
function eventOf(turn: RemoteTurn, type: string): Promise<AgentEvent> {
  return new Promise((resolve, reject) => {
    const subscription = turn.events.subscribe({
      next: (event) => {
        if (event.payload.type !== type) return;
        resolve(event);
        queueMicrotask(() => subscription.unsubscribe());
      },
      complete: () => reject(new Error(`the turn ended without ${type}`)),
    });
  });
}

/** The stored end of `turnId`, once there is one. */
async function endOf(schema: string, sessionId: string, turnId: string) {
  return eventually(async () => {
    const rows = await storedRows(observer, schema, sessionId);
    const end = rows.find(
      ({ event }) =>
        kindOf(event) === 'turn_ended' &&
        (event.payload as { value: { turnId: string } }).value.turnId === turnId,
    );
    return end ? { rows, status: (end.event.payload as { value: { status: string } }).value.status } : null;
  }, 'the turn ends in storage');
}

/** The stored tool results, by call id. */
const toolResults = (rows: readonly StoredRow[]) =>
  Object.fromEntries(
    rows.flatMap(({ event: { payload } }) =>
      payload.type === 'tool_result' ? [[payload.callId, payload.content]] : [],
    ),
  );

/** The text of the session's last assistant message. */
function answerOf(session: RemoteSession): string {
  const last = [...session.messages].reverse().find((m) => m.type === 'assistant');
  return JSON.stringify(last ?? null);
}

/** When the stored `turn_recovery` of attempt `attempt` says it started (ms since the epoch). */
function recoveredAt(rows: readonly StoredRow[], attempt = 1): number {
  const record = recoveryRows(rows).find((value) => (value as { attempt: number }).attempt === attempt) as
    { at: string } | undefined;
  expect(record, `turn_recovery attempt ${attempt} is stored`).toBeDefined();
  return Date.parse(record!.at);
}

/** Waits a few sweeps: whatever would still run has had time to. */
const settle = () => new Promise((resolve) => setTimeout(resolve, LEASE_MS + 3 * SWEEP_MS));

describe('chaos: a turn survives its instance (real processes, PostgreSQL, HTTP)', () => {
  it(
    'SIGKILL mid-answer: B goes on with the turn by itself, the result settles completed, the answer is whole',
    async () => {
      const w = await world(['A', 'B']);
      const { session, turn } = await turnOn(w.remote(), 'hold 1');
      await within(eventOf(turn, 'text_delta'), 'A streams the first part');
      expect(await holderOf(w.schema, session.id)).toBe('A');
      const killedAt = await w.kill('A');
      // Nobody asked B: its sweep takes the turn up once A's lease ran out, and asks the model again.
      await eventually(async () => w.model.counters.requests >= 2, 'B asks the model again');
      const askedAt = Date.now();
      w.model.hold.release();
      const result: TurnResult = await within(turn.result, 'the turn result settles');
      const settledAt = Date.now();
      expect(result.status).toBe('completed');
      const { rows, status } = await endOf(w.schema, session.id, turn.id);
      expect(status).toBe('completed');
      expect(recoveryRows(rows)).toEqual([{ turnId: turn.id, attempt: 1, at: expect.any(String) }]);
      expect(await holderOf(w.schema, session.id)).toBe('B');
      await expectCleanHistory(observer, w.schema, session.id);
      // The answer is whole: the cut-off part stays an incomplete message, the recovered one is all of it.
      expect(answerOf(session)).toContain('part one part two');
      figure('S1 SIGKILL → turn_resumed stored by B (sweep)', recoveredAt(rows) - killedAt);
      figure('S1 SIGKILL → B asks the model again', askedAt - killedAt);
      figure('S1 SIGKILL → result settled at the client', settledAt - killedAt);
    },
    TEST_MS,
  );

  it(
    'SIGKILL while a non-idempotent mutating tool runs: it never runs again, the model reads "outcome unknown", the turn completes',
    async () => {
      const w = await world(['A', 'B']);
      const { session, turn } = await turnOn(w.remote(), 'tool transfer 2');
      await within(w.instance('A').toolStarted('transfer-2'), 'transfer starts on A');
      const killedAt = await w.kill('A');
      const result = await within(turn.result, 'the turn result settles');
      figure('S2 SIGKILL → result settled at the client', Date.now() - killedAt);
      expect(result.status).toBe('completed');
      const { rows } = await endOf(w.schema, session.id, turn.id);
      expect(toolResults(rows)).toEqual({ 'transfer-2': TOOL_OUTCOME_UNKNOWN_SERVER_TEXT });
      expect(answerOf(session)).toContain('all done');
      await settle();
      expect(await toolRuns(observer)).toMatchObject({ 'transfer-2': 1 });
      await expectCleanHistory(observer, w.schema, session.id);
    },
    TEST_MS,
  );

  it(
    'SIGKILL while an idempotent tool runs: B runs it once more and the turn completes with its result',
    async () => {
      const w = await world(['A', 'B']);
      const { session, turn } = await turnOn(w.remote(), 'tool upsert 3');
      await within(w.instance('A').toolStarted('upsert-3'), 'upsert starts on A');
      const killedAt = await w.kill('A');
      const result = await within(turn.result, 'the turn result settles');
      figure('S3 SIGKILL → result settled at the client', Date.now() - killedAt);
      expect(result.status).toBe('completed');
      const { rows } = await endOf(w.schema, session.id, turn.id);
      expect(toolResults(rows)).toEqual({ 'upsert-3': 'upsert ran' });
      expect(answerOf(session)).toContain('all done');
      await settle();
      expect(await toolRuns(observer)).toMatchObject({ 'upsert-3': 2 });
      await expectCleanHistory(observer, w.schema, session.id);
    },
    TEST_MS,
  );

  it(
    'SIGKILL while a read-only tool runs, and no client at all: the sweep alone runs it again and completes the turn',
    async () => {
      const w = await world(['A', 'B']);
      // Raw HTTP: the turn's stream is the only request, and nobody reconnects after the kill.
      const headers = { authorization: 'Bearer alice', 'content-type': 'application/json' };
      const created = await fetch(`${w.url}/sessions`, { method: 'POST', headers, body: '{}' });
      expect(created.status).toBe(201);
      const { id: sessionId } = (await created.json()) as { id: string };
      const controller = new AbortController();
      const response = await fetch(`${w.url}/sessions/${sessionId}/turns`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ input: 'tool lookup 31' }),
        signal: controller.signal,
      });
      expect(response.status).toBe(200);
      const turnId = response.headers.get('youyou-turn-id')!;
      await within(w.instance('A').toolStarted('lookup-31'), 'lookup starts on A');
      const killedAt = await w.kill('A');
      controller.abort();
      const { rows, status } = await endOf(w.schema, sessionId, turnId);
      figure('S3b SIGKILL → turn ended in storage (sweep only)', Date.now() - killedAt);
      figure('S3b SIGKILL → turn_resumed stored by B (sweep only)', recoveredAt(rows) - killedAt);
      expect(status).toBe('completed');
      expect(toolResults(rows)).toEqual({ 'lookup-31': 'lookup ran' });
      await settle();
      expect(await toolRuns(observer)).toMatchObject({ 'lookup-31': 2 });
      await expectCleanHistory(observer, w.schema, sessionId);
    },
    TEST_MS,
  );

  it(
    'SIGKILL while a turn awaits approval: B takes it over parked, the approval is still pending, approving through B runs the tool once',
    async () => {
      const w = await world(['A', 'B']);
      const { session, turn } = await turnOn(w.remote(), 'tool payout 4');
      await within(eventOf(turn, 'approval_requested'), 'A asks for the approval');
      const killedAt = await w.kill('A');
      // B's sweep opens the session once A's lease ran out; the turn stays parked on its approval.
      await eventually(async () => (await holderOf(w.schema, session.id)) === 'B', 'B holds the session');
      figure('S4 SIGKILL → B holds the parked session', Date.now() - killedAt);
      const active = await eventually(
        async () =>
          session.activeTurn?.pendingApprovals.some((p) => p.callId === 'payout-4')
            ? session.activeTurn
            : null,
        'the client sees the approval still pending',
      );
      expect(active.id).toBe(turn.id);
      expect(recoveryRows(await storedRows(observer, w.schema, session.id))).toEqual([]);
      expect((await toolRuns(observer))['payout-4']).toBeUndefined();
      await within(active.approve('payout-4'), 'the approval is sent through the proxy to B');
      const result = await within(turn.result, 'the turn result settles');
      expect(result.status).toBe('completed');
      const { rows } = await endOf(w.schema, session.id, turn.id);
      expect(toolResults(rows)).toEqual({ 'payout-4': 'payout ran' });
      expect(answerOf(session)).toContain('all done');
      await settle();
      expect(await toolRuns(observer)).toMatchObject({ 'payout-4': 1 });
      await expectCleanHistory(observer, w.schema, session.id);
    },
    TEST_MS,
  );

  it(
    'the holder killed 3 times in a row (maxAttempts 3): the turn ends failed RECOVERY_EXHAUSTED, and nothing more runs',
    async () => {
      const w = await world(['A', 'B', 'C', 'D'], { maxAttempts: 3 });
      // The model never finishes: every run dies mid-answer, without progress.
      const { session, turn } = await turnOn(w.remote(), 'hold 5');
      await within(eventOf(turn, 'text_delta'), 'A streams');
      let holder = 'A';
      const killed: string[] = [];
      for (let death = 1; death <= 3; death++) {
        const killedAt = await w.kill(holder);
        killed.push(holder);
        if (death === 3) break;
        holder = await eventually(
          async () => {
            const now = await holderOf(w.schema, session.id);
            return now && !killed.includes(now) && w.model.counters.requests >= death + 1 ? now : null;
          },
          `run ${death + 1} starts on another instance`,
        );
        figure(`S5 SIGKILL ${death} → run ${death + 1} asks the model (on ${holder})`, Date.now() - killedAt);
      }
      const result = await within(turn.result, 'the turn result settles');
      expect(result.status).toBe('failed');
      expect(result.error?.code, result.error?.message).toBe('RECOVERY_EXHAUSTED');
      const { rows, status } = await endOf(w.schema, session.id, turn.id);
      expect(status).toBe('failed');
      expect(recoveryRows(rows).map((v) => (v as { attempt: number }).attempt)).toEqual([1, 2]);
      await settle();
      // Three runs asked the model, the one that gave up did not; nothing ran after.
      expect(w.model.counters.requests).toBe(3);
      const after = await storedRows(observer, w.schema, session.id);
      expect(after.length).toBe(rows.length);
      expect(after.filter(({ event }) => kindOf(event) === 'turn_ended')).toHaveLength(1);
      await expectCleanHistory(observer, w.schema, session.id);
      // The session stays usable.
      const next = await within(session.sendMessage('hi'), 'a new turn starts');
      expect((await within(next.result, 'the new turn settles')).status).toBe('completed');
    },
    TEST_MS,
  );

  it(
    'a graceful close (deploy): B resumes the turn within about 2 s, and it completes',
    async () => {
      const w = await world(['A', 'B']);
      const { session, turn } = await turnOn(w.remote(), 'hold 6');
      await within(eventOf(turn, 'text_delta'), 'A streams the first part');
      const closedAt = await w.close('A');
      // Given back by the close itself, not left to run out (how soon B goes on is the bench's).
      expect(await holderOf(w.schema, session.id)).not.toBe('A');
      await eventually(async () => w.model.counters.requests >= 2, 'B asks the model again');
      const askedAt = Date.now();
      w.model.hold.release();
      const result = await within(turn.result, 'the turn result settles');
      const settledAt = Date.now();
      expect(result.status).toBe('completed');
      const { rows } = await endOf(w.schema, session.id, turn.id);
      expect(answerOf(session)).toContain('part one part two');
      const resumed = recoveredAt(rows) - closedAt;
      figure('S6 close() → turn_resumed stored by B', resumed);
      figure('S6 close() → B asks the model again', askedAt - closedAt);
      figure('S6 close() → result settled at the client', settledAt - closedAt);
      await expectCleanHistory(observer, w.schema, session.id);
    },
    TEST_MS,
  );
});
