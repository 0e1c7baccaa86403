/**
 * Part 9, take-over: how soon a turn goes on on another instance after its instance dies. Two
 * instances (child processes of the chaos tests, `test/chaos/`) on one real PostgreSQL, a client
 * (`RemoteAgent`) behind a proxy that sends each new connection to the first instance alive. Per
 * round: a turn starts on A, its answer is held after its first words, A is SIGKILLed (or, for a
 * deploy, closed with `handler.close()`), and the client reconnects through the proxy to B,
 * which recovers the turn. The client usually reconnects once the recovered turn has run (its
 * answer is not held), so it settles from the state's `lastTurn` and sees no `turn_resumed`:
 * the rounds that did see it are counted. Measured from the kill: when the client saw `turn_resumed`, and when
 * its `result` settled. With the default `leaseMs` (10 s) and a short one (1.5 s); B's recovery
 * sweep runs every 200 ms. Also what recovery costs in model output: the characters the model
 * streamed for a recovered turn against an uninterrupted one.
 * @module
 */
import { RemoteAgent } from '../../src/remote.js';
import type { AgentEvent } from '../../src/index.js';
import {
  RoutingProxy,
  startInstance,
  startModel,
  within,
  type ChaosInstance,
} from '../../test/chaos/world.js';
import { quantile } from '../peer/stats.js';
import { startPostgres } from './postgres-server.js';
import { round, row, type Row } from './report.js';

const SWEEP_MS = 200;
const DEFAULT_LEASE_MS = 10_000;
const SHORT_LEASE_MS = 1_500;
/** Rounds with `handler.close()` instead of a kill. */
const CLOSE_ROUNDS = 5;

/** One round's figures, in ms from the kill (or the close). */
interface Round {
  resumedMs: number;
  settledMs: number;
  status: string;
  /** Output characters the model streamed for the turn, over its runs. */
  outputChars: number;
}

/** Runs the part: `kills` SIGKILLs per lease, and {@link CLOSE_ROUNDS} closes. */
export async function takeover(kills: number): Promise<Row[]> {
  const database = await startPostgres();
  let schemas = 0;
  try {
    /** One round on a fresh schema: A runs the turn and is stopped by `stop`, B takes it. */
    const runRound = async (leaseMs: number, stop: (a: ChaosInstance) => Promise<void>): Promise<Round> => {
      const model = await startModel();
      const config = {
        connection: database.connection,
        schema: `takeover_${++schemas}`,
        leaseMs,
        modelBaseURL: model.server.baseURL,
        sweepIntervalMs: SWEEP_MS,
      };
      // A first: it makes the schema, and the proxy sends the turn to it.
      const a = await startInstance(config, 'A');
      const b = await startInstance(config, 'B').catch(async (error: unknown) => {
        await a.kill();
        throw error;
      });
      let aAlive = true;
      const proxy = await RoutingProxy.start(() => (aAlive ? [a.port, b.port] : [b.port]));
      try {
        const remote = new RemoteAgent({
          url: `${proxy.origin}/agent`,
          headers: { authorization: 'Bearer alice' },
          requestTimeoutMs: 10_000,
          reconnectTimeoutMs: 120_000,
        });
        const session = await within(remote.newSession(), 'the session is created');
        const turn = await within(session.sendMessage('hold 1'), 'the turn starts');
        let resumedAt = 0;
        const firstText = new Promise<void>((resolve) =>
          turn.events.subscribe((event: AgentEvent) => {
            if (event.payload.type === 'text_delta') resolve();
            if (event.payload.type === 'turn_resumed' && resumedAt === 0) resumedAt = Date.now();
          }),
        );
        await within(firstText, 'the first words on A');
        const stoppedAt = Date.now();
        aAlive = false;
        await stop(a);
        // The recovered run asks the model again: that answer is not held.
        model.hold.release();
        const result = await within(turn.result, 'the recovered result', leaseMs + 60_000);
        const settledAt = Date.now();
        await session.close().catch(() => {});
        return {
          resumedMs: resumedAt === 0 ? Number.NaN : resumedAt - stoppedAt,
          settledMs: settledAt - stoppedAt,
          status: result.status,
          outputChars: model.counters.outputChars,
        };
      } finally {
        await proxy.close();
        await Promise.allSettled([a.kill(), b.kill()]);
        await model.server.close();
      }
    };
    const rows: Row[] = [];
    const summarise = (what: string, rounds: Round[], bound: string) => {
      const resumed = rounds.map((r) => r.resumedMs).filter((ms) => !Number.isNaN(ms));
      const settled = rounds.map((r) => r.settledMs);
      const failed = rounds.filter((r) => r.status !== 'completed').length;
      const p = (values: number[], q: number) => round(quantile(values, q) / 1000, 2);
      rows.push(
        row(
          '9 take-over',
          `${what}: result settled at the client, p50`,
          p(settled, 0.5),
          's',
          `p99 ${p(settled, 0.99)} s, max ${p(settled, 1)} s over ${rounds.length} rounds; ${failed} not completed; ${resumed.length} saw turn_resumed; ${bound}`,
        ),
      );
    };
    for (const leaseMs of [DEFAULT_LEASE_MS, SHORT_LEASE_MS]) {
      const rounds: Round[] = [];
      for (let k = 0; k < kills; k++) rounds.push(await runRound(leaseMs, (a) => a.kill()));
      summarise(`SIGKILL, leaseMs ${leaseMs / 1000} s`, rounds, `bound: leaseMs + 2 s of the reconnect`);
      if (leaseMs === SHORT_LEASE_MS) {
        // What recovery costs the model: the first run's words, then the whole answer again.
        const uninterrupted = 'part one part two'.length;
        const chars = rounds.map((r) => r.outputChars);
        rows.push(
          row(
            '9 take-over',
            'model output of a recovered turn / an uninterrupted one',
            round(quantile(chars, 0.5) / uninterrupted, 2),
            '×',
            `${quantile(chars, 0.5)} characters streamed against ${uninterrupted}`,
          ),
        );
      }
    }
    const closes: Round[] = [];
    for (let k = 0; k < CLOSE_ROUNDS; k++) closes.push(await runRound(DEFAULT_LEASE_MS, (a) => a.close()));
    summarise(`handler.close(), leaseMs ${DEFAULT_LEASE_MS / 1000} s`, closes, 'bound: 2 s');
    return rows;
  } finally {
    await database.stop();
  }
}
