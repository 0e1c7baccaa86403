/**
 * Server bench: `youyou-agent/server` under load, with `RemoteAgent` clients over real HTTP on
 * 127.0.0.1 and agents whose model is an `OpenAIProvider` on a local Chat Completions server.
 * Each instance is a process of its own (`server/instance.ts`); the clients and the model server
 * run in this one.
 *
 * 1. `throughput`: turns per second on one instance, against the same turns in-process;
 * 2. `latency`: the latency the server adds per event (p50 / p99), remote against in-process;
 * 3. `memory`: heap and RSS per open, idle session, after GC;
 * 4. `load`: `--sessions` (200) sessions at once running turns, counting errors;
 * 5. `postgres`: two instances on one real PostgreSQL server, requests for the same sessions
 *    spread across both: take-overs, and the stored histories checked for interleaving and
 *    duplicated events.
 *
 * 6. `paced`: at 1 / 10 / 100 / 500 concurrent paced streams (`--streams`), the latency per
 *    delta (p50 / p99 / max), the instance's CPU per turn, bytes and response writes per delta,
 *    next to the same load through a plain streaming route with no agent (the floor);
 * 7. `admission`: turns beyond `maxRunningTurns`, refused with `Retry-After`;
 * 8. `slow`: the instance's heap in the middle of a 16 MiB answer streamed past a client that
 *    never reads and one that reads 1 kB/s, against the same answer with no slow client;
 * 9. `takeover`: after a SIGKILL (`--kills` per lease length, the default `leaseMs` and a short
 *    one) and after `handler.close()`, how soon the client sees the turn resumed on the other
 *    instance and its result; and the model output a recovered turn costs. Minutes: its rounds
 *    wait out the lease.
 *
 * Options: see `server/settings.ts`; `npm run bench -- server --only latency,memory`. The table
 * is also written to `bench/results/server-latest.json` (git-ignored), with the commit measured.
 * @module
 */
import { execFileSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { round, row, type Row } from './server/report.js';
import { startInstance, type InstanceProcess } from './server/instance-process.js';
import type { InstanceConfig } from './server/instance-protocol.js';
import { latency } from './server/latency.js';
import { load } from './server/load.js';
import { memory } from './server/memory.js';
import { modelId, startModelServer, type ModelServer } from './server/model-server.js';
import { admission, paced } from './server/paced.js';
import { postgres } from './server/postgres-part.js';
import { readSettings, type ServerSettings } from './server/settings.js';
import { SLOW_BUFFER_BYTES, SLOW_MODEL, slow } from './server/slow.js';
import { takeover } from './server/takeover.js';
import { throughput } from './server/throughput.js';
import type { BenchOptions, BenchResult } from './types.js';

const RESULTS = fileURLToPath(new URL('./results/', import.meta.url));

/** The commit measured, or `null` outside a git checkout. */
function commit(): string | null {
  try {
    return execFileSync('git', ['rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();
  } catch {
    return null;
  }
}

/** An in-memory instance serving the bench's models, stopped after `use`. */
async function withInstance<T>(
  model: ModelServer,
  settings: ServerSettings,
  extra: Partial<InstanceConfig>,
  use: (instance: InstanceProcess) => Promise<T>,
): Promise<T> {
  const instance = await startInstance(instanceConfig(model, settings, extra));
  try {
    return await use(instance);
  } finally {
    await instance.stop();
  }
}

/** What every instance of the bench is set up with. */
export function instanceConfig(
  model: ModelServer,
  settings: ServerSettings,
  extra: Partial<InstanceConfig> = {},
): InstanceConfig {
  return {
    modelBaseURL: model.baseURL,
    modelIds: [modelId(settings.deltas, 0), modelId(settings.deltas, settings.paceMs)],
    sdkClient: settings.sdkClient,
    idleTimeoutMs: 600_000,
    maxOpenSessions: 1_000,
    ...extra,
  };
}

/** Runs the server bench. */
export default async function run(options: BenchOptions): Promise<BenchResult> {
  const settings = readSettings(options);
  const loadBefore = loadavg()[0]!;
  const started = performance.now();
  const model = await startModelServer();
  const rows: Row[] = [];
  const notes: string[] = [];
  const wants = (part: ServerSettings['only'][number]) => settings.only.includes(part);
  try {
    if (wants('throughput') || wants('load')) {
      await withInstance(model, settings, {}, async (instance) => {
        if (wants('throughput')) rows.push(...(await throughput(instance, settings)));
        if (wants('load')) rows.push(...(await load(instance, settings)));
      });
    }
    if (wants('latency')) rows.push(...(await latency(model, settings)));
    if (wants('memory')) {
      // Room for every idle session the part opens.
      const room = { maxOpenSessions: Math.max(1_000, settings.idleSessions + 10) };
      rows.push(...(await withInstance(model, settings, room, (i) => memory(i, settings))));
    }
    if (wants('paced'))
      rows.push(...(await withInstance(model, settings, {}, (i) => paced(i, model, settings))));
    if (wants('admission')) {
      const limit = Math.max(1, Math.floor(Math.max(...settings.streams) / 4));
      rows.push(
        ...(await withInstance(model, settings, { maxRunningTurns: limit }, (i) =>
          admission(i, settings, limit),
        )),
      );
    }
    if (wants('slow')) {
      const extra = { modelIds: [modelId(settings.deltas, 0), SLOW_MODEL], maxStreamBufferBytes: SLOW_BUFFER_BYTES };
      rows.push(...(await withInstance(model, settings, extra, (i) => slow(i))));
    }
    if (wants('takeover')) rows.push(...(await takeover(settings.kills)));
    if (wants('postgres')) {
      const pg = await postgres(settings, (config) => startInstance(instanceConfig(model, settings, config)));
      rows.push(...pg.rows);
      notes.push(...pg.notes);
    }
  } finally {
    await model.close();
  }
  rows.push(row('', 'bench wall time', round((performance.now() - started) / 1000, 1), 's'));
  const result: BenchResult = {
    title:
      'Server: youyou-agent/server + RemoteAgent over HTTP on 127.0.0.1, OpenAIProvider on a local Chat Completions server',
    rows,
    notes: [
      `deltas per answer: ${settings.deltas}; model client: ${settings.sdkClient ? 'openai SDK client' : "the provider's own fetch client"}`,
      'each instance is its own process; clients and the model server share this one (2 cores: they compete); the latency part runs all in this one (one clock)',
      ...notes,
      `load average (1 min) ${loadBefore.toFixed(2)} before, ${loadavg()[0]!.toFixed(2)} after, ${cpus().length} CPUs`,
    ],
  };
  await mkdir(RESULTS, { recursive: true });
  const record = {
    date: new Date().toISOString(),
    commit: commit(),
    node: process.version,
    settings,
    ...result,
  };
  await writeFile(`${RESULTS}server-latest.json`, `${JSON.stringify(record, null, 2)}\n`);
  return result;
}
