/**
 * Part 8, slow clients: what a client that never reads, and one that reads 1 kB a second, cost
 * the server while a turn streams a 16 MiB answer past them. The instance's heap after a full GC
 * before the turn and in the middle of it, for the same turn without and with the two clients on
 * the session's stream: the difference is what they cost (a stream whose queue would pass
 * `maxStreamBufferBytes`, 1 MiB here, is dropped). The turn itself runs through a `RemoteAgent`
 * that reads at full speed. The answers stay in the in-memory storage: each run starts higher.
 * @module
 */
import { connect, type Socket } from 'node:net';
import type { InstanceProcess } from './instance-process.js';
import type { MemoryReading } from './instance-protocol.js';
import { modelId } from './model-server.js';
import { remoteAgent } from './remote-sessions.js';
import { round, row, type Row } from './report.js';

/** The answer: 512 deltas of 32 KiB, 2 ms apart (16 MiB). */
const DELTAS = 512;
const WIDTH = 32 * 1024;
const PACE_MS = 2;
/** The model the part's sessions use (the instance must serve it). */
export const SLOW_MODEL = modelId(DELTAS, PACE_MS, WIDTH);
/** The instance's `maxStreamBufferBytes` in this part. */
export const SLOW_BUFFER_BYTES = 1024 * 1024;

/** A raw event-stream request that reads `bytesPerSecond` of the answer (0: never reads). */
function slowReader(url: string, sessionId: string, bytesPerSecond: number) {
  const { port, pathname } = new URL(url);
  const socket: Socket = connect(Number(port), '127.0.0.1');
  let read = 0;
  socket.on('error', () => {});
  socket.pause();
  socket.write(
    `GET ${pathname}/sessions/${sessionId}/events HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer u1\r\n\r\n`,
  );
  const timer =
    bytesPerSecond > 0
      ? setInterval(() => {
          const piece = socket.read(Math.min(bytesPerSecond, socket.readableLength)) as Buffer | null;
          read += piece?.length ?? 0;
        }, 1_000)
      : null;
  return {
    get read() {
      return read;
    },
    stop() {
      if (timer) clearInterval(timer);
      socket.destroy();
    },
  };
}

/** The heap readings of one turn, with or without the two slow clients. */
interface Run {
  before: MemoryReading;
  during: MemoryReading;
  after: MemoryReading;
  status: string;
  /** Why the instance's event streams closed during the run, and how many were still open after it. */
  streams: Record<string, number>;
  trickled: number;
}

/** One turn on a new session, with the two slow clients on its event stream when `slowClients`. */
async function runTurn(instance: InstanceProcess, slowClients: boolean): Promise<Run> {
  const agent = remoteAgent(instance.url, 'u1');
  const streamsBefore = await instance.request<Record<string, number>>({ type: 'streams' });
  const before = await instance.request<MemoryReading>({ type: 'memory' });
  const session = await agent.newSession({ modelId: SLOW_MODEL });
  const readers = slowClients
    ? [slowReader(instance.url, session.id, 0), slowReader(instance.url, session.id, 1024)]
    : [];
  try {
    const turn = await session.sendMessage('slow');
    // Half way through the answer (as the model paces it).
    await new Promise((resolve) => setTimeout(resolve, (DELTAS * PACE_MS) / 2));
    const during = await instance.request<MemoryReading>({ type: 'memory' });
    const result = await turn.result;
    const status = result.error
      ? `${result.status} (${result.error.code}: ${result.error.message})`
      : result.status;
    await session.close();
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const after = await instance.request<MemoryReading>({ type: 'memory' });
    const streamsAfter = await instance.request<Record<string, number>>({ type: 'streams' });
    const streams: Record<string, number> = { open: streamsAfter['open'] ?? 0 };
    for (const [reason, count] of Object.entries(streamsAfter))
      if (reason !== 'open' && count !== streamsBefore[reason])
        streams[reason] = count - (streamsBefore[reason] ?? 0);
    return { before, during, after, status, streams, trickled: readers[1]?.read ?? 0 };
  } finally {
    for (const reader of readers) reader.stop();
  }
}

/**
 * Runs the part on a fresh `instance` (serving {@link SLOW_MODEL}, with `maxStreamBufferBytes`
 * {@link SLOW_BUFFER_BYTES}): the same turn without slow clients, then with them.
 */
export async function slow(instance: InstanceProcess): Promise<Row[]> {
  // A first turn, so code loaded on first use is not counted.
  await runTurn(instance, false);
  const plain = await runTurn(instance, false);
  const behind = await runTurn(instance, true);
  const mib = (bytes: number) => round(bytes / 1024 / 1024, 1);
  const part = '8 slow clients, 16 MiB answer';
  const readings = (run: Run) =>
    `${mib(run.before.heapUsed)} → ${mib(run.during.heapUsed)} → ${mib(run.after.heapUsed)} MiB`;
  const closes = (run: Run) =>
    Object.entries(run.streams)
      .map(([reason, count]) => `${count} ${reason}`)
      .join(', ');
  return [
    row(
      part,
      'heap during, no slow client',
      mib(plain.during.heapUsed - plain.before.heapUsed),
      'MiB',
      `before → mid-answer → after close: ${readings(plain)}`,
    ),
    row(
      part,
      'heap during, two slow clients',
      mib(behind.during.heapUsed - behind.before.heapUsed),
      'MiB',
      `a client that never reads and one at 1 kB/s on the session's stream: ${readings(behind)}`,
    ),
    row(
      part,
      'heap the slow clients added',
      mib(behind.during.heapUsed - behind.before.heapUsed - (plain.during.heapUsed - plain.before.heapUsed)),
      'MiB',
      `maxStreamBufferBytes ${mib(SLOW_BUFFER_BYTES)} MiB each`,
    ),
    row(
      part,
      'streams dropped as overflowing',
      behind.streams['overflow'] ?? 0,
      'of 2',
      `the instance's event streams, by why they closed: ${closes(behind)} (without the slow clients: ${closes(plain)}); turn ${behind.status}; ${behind.trickled} B read at 1 kB/s`,
    ),
  ];
}
