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
import { performance } from 'node:perf_hooks';
import type { InstanceProcess } from './instance-process.js';
import { deltaIndex, modelId, type ModelServer } from './model-server.js';
import { round, row, type Row } from './report.js';
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
async function readAnswer(response: Response): Promise<Read> {
  const read: Read = { arrivals: [], bytes: 0, failed: !response.ok || !response.body };
  if (read.failed) {
    await response.body?.cancel();
    return read;
  }
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const part of response.body! as AsyncIterable<Uint8Array>) {
    const now = performance.now();
    read.bytes += part.byteLength;
    buffer += decoder.decode(part, { stream: true });
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = frame.split('\n').find((line) => line.startsWith('data: '));
      const text = data === undefined ? null : deltaText(data.slice(6));
      const k = text === null ? null : deltaIndex(text);
      if (k !== null) read.arrivals[k] = now;
    }
  }
  return read;
}

const quantile = (sorted: readonly number[], q: number) =>
  sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;

/** Runs the part and returns its rows. */
export async function paced(
  instance: InstanceProcess,
  model: ModelServer,
  settings: ServerSettings,
): Promise<Row[]> {
  const rows: Row[] = [];
  const id = modelId(settings.deltas, settings.paceMs);
  const origin = new URL(instance.url).origin;
  const auth = (i: number) => ({ authorization: `Bearer u${i % 10}` });
  const frames = settings.deltas + 1;
  for (const streams of settings.streams) {
    const sessions: string[] = [];
    for (let i = 0; i < streams; i += BATCH) {
      const count = Math.min(BATCH, streams - i);
      sessions.push(
        ...(await Promise.all(
          Array.from({ length: count }, async (_, k) => {
            const response = await fetch(`${instance.url}/sessions`, {
              method: 'POST',
              headers: { ...auth(i + k), 'content-type': 'application/json' },
              body: JSON.stringify({ config: { modelId: id } }),
            });
            return ((await response.json()) as { id: string }).id;
          }),
        )),
      );
    }
    for (const route of ['youyou', 'plain'] as const) {
      const tags = sessions.map((_, i) => `lat-${route}-${streams}-${i}`);
      const cpu0 = await instance.request<number>({ type: 'cpu' });
      const writes0 = await instance.request<number>({ type: 'writes' });
      const reads = await Promise.all(
        sessions.map(async (sessionId, i) => {
          const response =
            route === 'youyou'
              ? await fetch(`${instance.url}/sessions/${sessionId}/turns`, {
                  method: 'POST',
                  headers: { ...auth(i), 'content-type': 'application/json' },
                  body: JSON.stringify({ input: tags[i] }),
                })
              : await fetch(`${origin}/plain?model=${id}&tag=${tags[i]}`);
          return readAnswer(response);
        }),
      );
      const cpu1 = await instance.request<number>({ type: 'cpu' });
      const writes1 = await instance.request<number>({ type: 'writes' });
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
      const failed = reads.filter((read) => read.failed).length;
      const bytes = reads.reduce((sum, read) => sum + read.bytes, 0);
      const part = `paced, ${streams} streams`;
      const name = route === 'youyou' ? 'youyou' : 'plain route (floor)';
      rows.push(
        row(part, `${name}: model → client per delta, p50`, round(quantile(added, 0.5), 3), 'ms'),
        row(part, `${name}: p99`, round(quantile(added, 0.99), 3), 'ms', `n=${added.length}`),
        row(part, `${name}: max`, round(added.at(-1) ?? Number.NaN, 3), 'ms'),
        row(
          part,
          `${name}: server CPU per turn`,
          round((cpu1 - cpu0) / streams, 2),
          'ms',
          `${settings.deltas} deltas`,
        ),
        row(
          part,
          `${name}: bytes per delta`,
          round(bytes / (streams * frames), 1),
          'B',
          'the whole answer, headers and all',
        ),
        row(
          part,
          `${name}: response writes per delta`,
          round((writes1 - writes0) / (streams * frames), 2),
          '',
        ),
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
  const auth = (i: number) => ({ authorization: `Bearer u${i % 10}`, 'content-type': 'application/json' });
  const sessions = await Promise.all(
    Array.from({ length: n }, async (_, i) => {
      const response = await fetch(`${instance.url}/sessions`, {
        method: 'POST',
        headers: auth(i),
        body: JSON.stringify({ config: { modelId: id } }),
      });
      return ((await response.json()) as { id: string }).id;
    }),
  );
  const answers = await Promise.all(
    sessions.map(async (sessionId, i) => {
      const response = await fetch(`${instance.url}/sessions/${sessionId}/turns`, {
        method: 'POST',
        headers: auth(i),
        body: JSON.stringify({ input: `adm-${i}` }),
      });
      const refused = response.status === 503;
      const retryAfter = response.headers.get('retry-after') !== null;
      await readAnswer(response);
      return { refused, retryAfter, ok: response.ok };
    }),
  );
  const refused = answers.filter((a) => a.refused);
  return [
    row('admission', `turns refused of ${n} at once`, refused.length, 'turns', `maxRunningTurns ${limit}`),
    row('admission', 'refusals with Retry-After', refused.filter((a) => a.retryAfter).length, 'turns'),
    row('admission', 'turns that ran', answers.filter((a) => a.ok).length, 'turns'),
  ];
}
