/**
 * Part `paced`: the server's cost per delta. At each of `--streams` concurrencies (1, 10, 100,
 * 500), as many turns at once, each a paced answer (`--deltas` deltas, `--pace` ms apart), read by
 * raw HTTP clients in this process; and the same load through the instance's plain streaming
 * route (`/plain`: the model's deltas forwarded as the AI SDK's frames, no agent), the floor.
 * For each: the latency per delta from the model server's write to the client's read (one clock:
 * both in this process), p50 / p99 / max; the instance's CPU per turn; bytes and response writes
 * per delta.
 * @module
 */
import { Agent, request, type IncomingMessage } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { InstanceProcess } from './instance-process.js';
import { deltaIndex, modelId, type ModelServer } from './model-server.js';
import { round as roundTo, row, type Row } from './report.js';
import type { ServerSettings } from './settings.js';

/** Sessions created at once. */
const BATCH = 25;

/** What one streamed answer showed its client. */
interface Read {
  /** When delta k arrived. */
  arrivals: number[];
  bytes: number;
  failed: boolean;
}

/** The delta text a frame carries, whatever the server's frame shapes. */
function deltaText(data: string): string | null {
  if (!data.startsWith('{')) return null;
  const value = JSON.parse(data) as {
    t?: string;
    delta?: string;
    payload?: { type?: string; text?: string };
    event?: { payload?: { type?: string; text?: string } };
  };
  if (typeof value.t === 'string') return value.t;
  if (typeof value.delta === 'string') return value.delta;
  const payload = value.event?.payload ?? value.payload;
  return payload?.type === 'text_delta' && typeof payload.text === 'string' ? payload.text : null;
}

/** Reads an SSE answer to its end, noting when each delta arrived. */
function readAnswer(response: IncomingMessage): Promise<Read> {
  const read: Read = { arrivals: [], bytes: 0, failed: response.statusCode !== 200 };
  if (read.failed) {
    response.resume();
    return new Promise((resolve) => response.on('end', () => resolve(read)).on('error', () => resolve(read)));
  }
  response.setEncoding('utf8');
  let buffer = '';
  response.on('data', (part: string) => {
    const now = performance.now();
    read.bytes += Buffer.byteLength(part);
    buffer += part;
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = frame.split('\n').find((line) => line.startsWith('data: '));
      const text = data === undefined ? null : deltaText(data.slice(6));
      const k = text === null ? null : deltaIndex(text);
      if (k !== null) read.arrivals[k] = now;
    }
  });
  return new Promise((resolve) => {
    response.on('end', () => resolve(read));
    response.on('error', () => resolve({ ...read, failed: true }));
  });
}

/**
 * One request over `agent`'s kept-alive sockets, answered as a stream. `node:http`, not `fetch`:
 * the clients share this process with the model server, and a web-stream reader per chunk costs
 * enough at 100 streams to show up in the floor's own latency.
 */
function send(
  agent: Agent,
  url: string,
  headers: Record<string, string>,
  body?: string,
): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: body === undefined ? 'GET' : 'POST', headers, agent }, resolve);
    req.on('error', reject);
    req.end(body);
  });
}

const round3 = (value: number) => roundTo(value, 3);

const quantile = (sorted: readonly number[], q: number) =>
  sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;

/** What one round of `streams` turns at once cost, through one route. */
interface Round {
  added: number[];
  missing: number;
  failed: number;
  bytes: number;
  cpuMs: number;
  writes: number;
}

/** `count` new sessions, `BATCH` at a time. */
async function newSessions(instance: InstanceProcess, count: number, modelId: string): Promise<string[]> {
  const sessions: string[] = [];
  for (let i = 0; i < count; i += BATCH) {
    const batch = Math.min(BATCH, count - i);
    sessions.push(
      ...(await Promise.all(
        Array.from({ length: batch }, async (_, k) => {
          const response = await fetch(`${instance.url}/sessions`, {
            method: 'POST',
            headers: { ...auth(i + k), 'content-type': 'application/json' },
            body: JSON.stringify({ config: { modelId } }),
          });
          return ((await response.json()) as { id: string }).id;
        }),
      )),
    );
  }
  return sessions;
}

const auth = (i: number) => ({ authorization: `Bearer u${i % 10}` });

/** One turn on each of `sessions` at once (or one plain answer each), measured. */
async function round(
  instance: InstanceProcess,
  model: ModelServer,
  settings: ServerSettings,
  route: 'youyou' | 'plain',
  sessions: readonly string[],
  label: string,
): Promise<Round> {
  const id = modelId(settings.deltas, settings.paceMs);
  const origin = new URL(instance.url).origin;
  const agent = new Agent({ keepAlive: true, maxSockets: sessions.length });
  const tags = sessions.map((_, i) => `lat-${route}-${label}-${i}`);
  const profile = process.env.BENCH_ROUND_PROF;
  if (profile) await instance.request({ type: 'profile', start: true });
  const cpu0 = await instance.request<number>({ type: 'cpu' });
  const writes0 = await instance.request<number>({ type: 'writes' });
  const reads = await Promise.all(
    sessions.map(async (sessionId, i) =>
      readAnswer(
        route === 'youyou'
          ? await send(
              agent,
              `${instance.url}/sessions/${sessionId}/turns`,
              { ...auth(i), 'content-type': 'application/json' },
              JSON.stringify({ input: tags[i] }),
            )
          : await send(agent, `${origin}/plain?model=${id}&tag=${tags[i]}`, {}),
      ),
    ),
  );
  const cpu1 = await instance.request<number>({ type: 'cpu' });
  const writes1 = await instance.request<number>({ type: 'writes' });
  if (profile)
    await instance.request({ type: 'profile', start: false, dir: profile, name: `${route}-${label}` });
  agent.destroy();
  const added: number[] = [];
  let missing = 0;
  reads.forEach((read, i) => {
    const emitted = model.emissions.get(tags[i]!) ?? [];
    for (let k = 0; k < settings.deltas; k++) {
      const at = read.arrivals[k];
      if (at === undefined || emitted[k] === undefined) missing++;
      else added.push(at - emitted[k]!);
    }
    model.emissions.delete(tags[i]!);
  });
  added.sort((a, b) => a - b);
  return {
    added,
    missing,
    failed: reads.filter((read) => read.failed).length,
    bytes: reads.reduce((sum, read) => sum + read.bytes, 0),
    cpuMs: cpu1 - cpu0,
    writes: writes1 - writes0,
  };
}

/** Closes `sessions`, so the next round starts from an instance with none open. */
async function closeSessions(instance: InstanceProcess, sessions: readonly string[]): Promise<void> {
  for (let i = 0; i < sessions.length; i += BATCH)
    await Promise.all(
      sessions.slice(i, i + BATCH).map(async (sessionId, k) => {
        const response = await fetch(`${instance.url}/sessions/${sessionId}/close`, {
          method: 'POST',
          headers: auth(i + k),
        });
        await response.body?.cancel();
      }),
    );
}

/**
 * Runs the part and returns its rows. Each concurrency runs twice on fresh sessions, and only
 * the second round is reported: the first warms the instance's JIT and lazy imports, which a
 * server pays once in its life, not per turn.
 */
export async function paced(
  instance: InstanceProcess,
  model: ModelServer,
  settings: ServerSettings,
): Promise<Row[]> {
  const rows: Row[] = [];
  const id = modelId(settings.deltas, settings.paceMs);
  const frames = settings.deltas + 1;
  for (const streams of settings.streams) {
    const measured = new Map<'youyou' | 'plain', Round>();
    for (const pass of ['warm-up', 'measured'] as const) {
      const sessions = await newSessions(instance, streams, id);
      for (const route of ['youyou', 'plain'] as const)
        measured.set(route, await round(instance, model, settings, route, sessions, `${streams}-${pass}`));
      await closeSessions(instance, sessions);
    }
    for (const route of ['youyou', 'plain'] as const) {
      const { added, missing, failed, bytes, cpuMs, writes } = measured.get(route)!;
      const part = `paced, ${streams} streams`;
      const name = route === 'youyou' ? 'youyou' : 'plain route (floor)';
      rows.push(
        row(part, `${name}: model → client per delta, p50`, round3(quantile(added, 0.5)), 'ms'),
        row(part, `${name}: p99`, round3(quantile(added, 0.99)), 'ms', `n=${added.length}`),
        row(part, `${name}: max`, round3(added.at(-1) ?? Number.NaN), 'ms'),
        row(
          part,
          `${name}: server CPU per turn`,
          roundTo(cpuMs / streams, 2),
          'ms',
          `${settings.deltas} deltas`,
        ),
        row(
          part,
          `${name}: bytes per delta`,
          roundTo(bytes / (streams * frames), 1),
          'B',
          'the whole answer, headers and all',
        ),
        row(part, `${name}: response writes per delta`, roundTo(writes / (streams * frames), 2), ''),
        row(part, `${name}: failed turns, deltas not seen`, failed, '', `${missing} deltas not seen`),
      );
    }
  }
  return rows;
}

/**
 * Part `admission`: `--streams`' largest count of turns at once against an instance whose
 * `maxRunningTurns` is a quarter of it: how many are refused (503, with `Retry-After`).
 */
export async function admission(
  instance: InstanceProcess,
  settings: ServerSettings,
  limit: number,
): Promise<Row[]> {
  const id = modelId(settings.deltas, settings.paceMs);
  const n = limit * 4;
  const headers = (i: number) => ({ ...auth(i), 'content-type': 'application/json' });
  const sessions = await Promise.all(
    Array.from({ length: n }, async (_, i) => {
      const response = await fetch(`${instance.url}/sessions`, {
        method: 'POST',
        headers: headers(i),
        body: JSON.stringify({ config: { modelId: id } }),
      });
      return ((await response.json()) as { id: string }).id;
    }),
  );
  const agent = new Agent({ keepAlive: true, maxSockets: n });
  const answers = await Promise.all(
    sessions.map(async (sessionId, i) => {
      const response = await send(
        agent,
        `${instance.url}/sessions/${sessionId}/turns`,
        headers(i),
        JSON.stringify({ input: `adm-${i}` }),
      );
      const refused = response.statusCode === 503;
      const retryAfter = response.headers['retry-after'] !== undefined;
      await readAnswer(response);
      return { refused, retryAfter, ok: response.statusCode === 200 };
    }),
  );
  agent.destroy();
  const refused = answers.filter((a) => a.refused);
  return [
    row('admission', `turns refused of ${n} at once`, refused.length, 'turns', `maxRunningTurns ${limit}`),
    row('admission', 'refusals with Retry-After', refused.filter((a) => a.retryAfter).length, 'turns'),
    row('admission', 'turns that ran', answers.filter((a) => a.ok).length, 'turns'),
  ];
}
