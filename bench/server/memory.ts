/**
 * Part 3, memory per open session: a fresh instance process, its heap and RSS after a full GC
 * before any session, with `idleSessions` sessions open and idle (created over HTTP, then left
 * alone: no turn, no stream), and again after one turn each (their history and frame log kept).
 * The growth divided by the number of sessions is the cost of one. The instance's idle timeout is
 * longer than the part, so none is released meanwhile.
 * @module
 */
import type { InstanceProcess } from './instance-process.js';
import type { MemoryReading } from './instance-protocol.js';
import { modelId } from './model-server.js';
import { openRemote } from './remote-sessions.js';
import { runTurn, type DrivenSession } from './drive.js';
import { round, row, type Row } from './report.js';
import type { ServerSettings } from './settings.js';

/** Sessions created at once (so creating them is not a burst of hundreds of requests). */
const BATCH = 25;

/** Runs the part on a fresh `instance` and returns its rows. */
export async function memory(instance: InstanceProcess, settings: ServerSettings): Promise<Row[]> {
  const n = settings.idleSessions;
  const model = modelId(settings.deltas, 0);
  const open = openRemote(instance.url, model);
  // One session opened and closed first, so code loaded on first use is not counted as sessions.
  const first = await open(0);
  await runTurn(first, 'mem-warm', settings.deltas);
  await first.close();
  const before = await instance.request<MemoryReading>({ type: 'memory' });
  const sessions: DrivenSession[] = [];
  for (let i = 0; i < n; i += BATCH) {
    const count = Math.min(BATCH, n - i);
    sessions.push(...(await Promise.all(Array.from({ length: count }, (_, k) => open(i + k)))));
  }
  const idle = await instance.request<MemoryReading>({ type: 'memory' });
  let errors = 0;
  for (let i = 0; i < n; i += BATCH) {
    const batch = sessions.slice(i, i + BATCH);
    const failed = await Promise.all(batch.map((s, k) => runTurn(s, `mem-s${i + k}`, settings.deltas)));
    errors += failed.filter((error) => error !== null).length;
  }
  const afterTurn = await instance.request<MemoryReading>({ type: 'memory' });
  await Promise.all(sessions.map((s) => s.close()));
  const kb = (bytes: number) => round(bytes / 1024 / n, 1);
  const part = `3 memory, ${n} sessions`;
  return [
    row(
      part,
      'heap per idle session',
      kb(idle.heapUsed - before.heapUsed),
      'KiB',
      `after GC; heap ${mib(before.heapUsed)} → ${mib(idle.heapUsed)} MiB`,
    ),
    row(
      part,
      'RSS per idle session',
      kb(idle.rss - before.rss),
      'KiB',
      `RSS ${mib(before.rss)} → ${mib(idle.rss)} MiB`,
    ),
    row(
      part,
      'heap per session after 1 turn',
      kb(afterTurn.heapUsed - before.heapUsed),
      'KiB',
      `${settings.deltas + 1} deltas each (history + frame log); heap ${mib(afterTurn.heapUsed)} MiB; ${errors} errors`,
    ),
    row(
      part,
      'RSS per session after 1 turn',
      kb(afterTurn.rss - before.rss),
      'KiB',
      `RSS ${mib(afterTurn.rss)} MiB`,
    ),
  ];
}

const mib = (bytes: number) => round(bytes / 1024 / 1024, 1);
