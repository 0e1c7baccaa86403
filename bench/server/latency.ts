/**
 * Part 2, the latency a server adds per event. Everything runs in this one process, so every
 * moment is read from the same clock (`performance.now()`): the model server, a handler on
 * 127.0.0.1 with a `RemoteAgent` client over real HTTP, and an in-process agent built by the same
 * factory. The model streams its deltas at a fixed pace, so each delta is an event of its own;
 * the two sides take turns, one turn at a time, so neither waits behind the other.
 *
 * Measured per event:
 * - model → client: from the moment the model server wrote delta k to the moment the client's
 *   `turn.events` delivered it, in-process and remote; the added latency is the remote time
 *   minus the in-process time of the same delta k of the paired turn;
 * - emission → client: from the server-side `session.events` emission (a subscriber the factory
 *   puts on every session before the handler's own) to the remote client's receipt, for every
 *   event (usage and the terminal event too), and the same from emission to a `turn.events`
 *   subscriber in-process.
 * @module
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { Agent, AgentEvent, Session } from '../../src/index.js';
import { createAgentHandler, toNodeListener } from '../../src/server.js';
import { quantile } from '../peer/stats.js';
import { agentFactory, benchProvider, inMemoryWorld } from './agents.js';
import { boundedResult, type DrivenSession, type TurnLike } from './drive.js';
import { deltaIndex, expectedAnswer, modelId, type ModelServer } from './model-server.js';
import { remoteAgent } from './remote-sessions.js';
import { percentiles, round, row, type Row } from './report.js';
import type { ServerSettings } from './settings.js';

const WARM_UP_TURNS = 2;

/** When each event of a session was emitted, by `sessionId#sequence`. */
type Emissions = Map<string, number>;
const keyOf = (event: AgentEvent) => `${event.sessionId}#${event.sequence}`;

/**
 * Every session `agent` opens records when its events are emitted: its subscriber comes before
 * the handler's, so on the server it hears each event before the frame is written.
 */
function recordEmissions(agent: Agent, emitted: Emissions): Agent {
  const newSession = agent.newSession.bind(agent);
  agent.newSession = async (config) => {
    const session: Session = await newSession(config);
    session.events.subscribe((event) => {
      if (!emitted.has(keyOf(event))) emitted.set(keyOf(event), performance.now());
    });
    return session;
  };
  return agent;
}

/** The delays of one side. */
interface Side {
  /** Model write of delta k → client receipt, by turn then k. */
  modelToClient: number[][];
  /** Emission → client receipt, every event. */
  emissionToClient: number[];
  errors: number;
}

/** Runs one turn on `session`, measuring its events. */
async function measuredTurn(
  session: DrivenSession,
  tag: string,
  model: ModelServer,
  emitted: Emissions,
  deltas: number,
  side: Side | null,
): Promise<void> {
  const turn: TurnLike = await session.sendMessage(tag);
  const arrivals: number[] = [];
  let text = '';
  const fromEmission: number[] = [];
  turn.events.subscribe((event) => {
    const now = performance.now();
    const { payload } = event;
    // In-process, `turn.events` may hear an event before `session.events` does: then it was
    // emitted now.
    const key = keyOf(event);
    if (!emitted.has(key)) emitted.set(key, now);
    fromEmission.push(now - emitted.get(key)!);
    if (payload.type !== 'text_delta') return;
    text += payload.text;
    const k = deltaIndex(payload.text);
    const written = k === null ? undefined : model.emissions.get(tag)?.[k];
    if (k !== null && written !== undefined) arrivals[k] = now - written;
  });
  const result = await boundedResult(turn.result);
  model.emissions.delete(tag);
  if (!side) return;
  if (result.status !== 'completed' || text !== expectedAnswer(deltas, tag) || arrivals.length !== deltas) {
    side.errors++;
    return;
  }
  side.modelToClient.push(arrivals);
  side.emissionToClient.push(...fromEmission);
}

/** Runs the part against `model` (in this process) and returns its rows. */
export async function latency(model: ModelServer, settings: ServerSettings): Promise<Row[]> {
  const id = modelId(settings.deltas, settings.paceMs);
  const emitted: Emissions = new Map();
  const base = agentFactory(benchProvider(model.baseURL, [id], settings.sdkClient), inMemoryWorld());
  const factory = async (scope: { userId: string }) => recordEmissions(await base(scope), emitted);
  const server = createServer(
    toNodeListener(createAgentHandler({ agent: factory, authorize: () => ({ userId: 'u0' }) })),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/agent`;
  const localAgent = await factory({ userId: 'u0' });
  try {
    const localSession = await localAgent.newSession({ modelId: id });
    const remoteSession = await remoteAgent(url, 'u0').newSession({ modelId: id });
    const sessions: DrivenSession[] = [
      { sendMessage: (text) => localSession.sendMessage(text), close: () => localSession.close() },
      { sendMessage: (text) => remoteSession.sendMessage(text), close: () => remoteSession.close() },
    ];
    const sides: Side[] = [0, 1].map(() => ({ modelToClient: [], emissionToClient: [], errors: 0 }));
    for (let r = 0; r < WARM_UP_TURNS + settings.latencyTurns; r++) {
      const order = r % 2 === 0 ? [0, 1] : [1, 0];
      for (const s of order) {
        const tag = `lat-${r}-${s === 0 ? 'local' : 'remote'}`;
        await measuredTurn(
          sessions[s]!,
          tag,
          model,
          emitted,
          settings.deltas,
          r < WARM_UP_TURNS ? null : sides[s]!,
        );
      }
    }
    await Promise.all(sessions.map((s) => s.close()));
    return rows(sides[0]!, sides[1]!, settings);
  } finally {
    await localAgent.shutdown();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

function rows(local: Side, remote: Side, settings: ServerSettings): Row[] {
  const paired = Math.min(local.modelToClient.length, remote.modelToClient.length);
  const added: number[] = [];
  for (let t = 0; t < paired; t++)
    remote.modelToClient[t]!.forEach((ms, k) => added.push(ms - local.modelToClient[t]![k]!));
  const part = '2 latency per event';
  const flat = (side: Side) => side.modelToClient.flat();
  const detail = `${paired} paired turns of ${settings.deltas} deltas, ${settings.paceMs} ms apart`;
  return [
    row(part, 'added (remote − in-process), p50', round(quantile(added, 0.5), 3), 'ms', detail),
    row(
      part,
      'added (remote − in-process), p99',
      round(quantile(added, 0.99), 3),
      'ms',
      `n=${added.length} deltas`,
    ),
    row(
      part,
      'model → in-process client, p50',
      round(quantile(flat(local), 0.5), 3),
      'ms',
      percentiles(flat(local)),
    ),
    row(
      part,
      'model → remote client, p50',
      round(quantile(flat(remote), 0.5), 3),
      'ms',
      percentiles(flat(remote)),
    ),
    row(
      part,
      'server emission → remote client, p50',
      round(quantile(remote.emissionToClient, 0.5), 3),
      'ms',
      `${percentiles(remote.emissionToClient)}, every event`,
    ),
    row(
      part,
      'emission → in-process subscriber, p50',
      round(quantile(local.emissionToClient, 0.5), 3),
      'ms',
      percentiles(local.emissionToClient),
    ),
    row(
      part,
      'turns that failed',
      local.errors + remote.errors,
      'turns',
      `in-process ${local.errors}, remote ${remote.errors}`,
    ),
  ];
}
