/**
 * Backpressure, by bytes: a client that never reads and one that reads 1 kB/s hold at most
 * `maxStreamBufferBytes` of queued frames on the server (asserted on the stream writer's queue);
 * past it the stream is dropped, and a client that then reads again reconnects and loses nothing.
 */
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { Conversation } from '../../src/index.js';
import { sseWriterSettings, type SseWriter } from '../../src/server/sse-writer.js';
import { ScriptedModelProvider, type ScriptItem } from '../../src/testing/index.js';
import { SharedSessionLock } from '../support/shared-lock.js';
import { remoteFor, serversClosedAfterEach, startHandler } from './support.js';

const servers = serversClosedAfterEach();

/** Resolves once `check` holds; fails after 10 s. */
async function waitFor(check: () => boolean, what: string): Promise<void> {
  for (const until = Date.now() + 10_000; !check(); ) {
    if (Date.now() > until) throw new Error(`${what}: not within 10 s`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
afterEach(() => {
  sseWriterSettings.onOpen = null;
  sseWriterSettings.heartbeatMs = 15_000;
});

/** A raw request for a session's event stream that, once sent, never reads a byte of the answer. */
function neverReading(origin: string, sessionId: string) {
  const socket = connect(Number(new URL(origin).port), '127.0.0.1');
  const gone = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  socket.on('error', () => {});
  socket.write(
    `GET /agent/sessions/${sessionId}/events HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer alice\r\n\r\n`,
  );
  socket.pause();
  return { socket, gone };
}

const BOUND = 64 * 1024;
/** Far more than the loopback socket buffers of both ends hold, so a client that stops reading falls behind. */
const DELTA = 'x'.repeat(32 * 1024);
const DELTAS = 400;
/** The largest frame of the answer: the first delta's, which opens the answer item (its text twice). */
const LARGEST_FRAME = 2 * DELTA.length + 1024;

function longAnswer(): ScriptItem[] {
  const items: ScriptItem[] = [];
  for (let i = 0; i < DELTAS; i++) items.push({ type: 'text_delta', text: DELTA });
  items.push({ type: 'done', finishReason: 'stop' });
  return items;
}

/** The writers the handler opens, in order, and the first of them once it opens. */
function watchWriters(): { writers: SseWriter[]; first: Promise<SseWriter> } {
  const writers: SseWriter[] = [];
  let opened!: (writer: SseWriter) => void;
  const first = new Promise<SseWriter>((resolve) => (opened = resolve));
  sseWriterSettings.onOpen = (writer) => {
    writers.push(writer);
    opened(writer);
  };
  return { writers, first };
}

describe('a slow client', () => {
  it('that never reads is disconnected once its queue would pass maxStreamBufferBytes', async () => {
    const provider = new ScriptedModelProvider({ script: [longAnswer()] });
    const server = await startHandler({ provider }, { maxStreamBufferBytes: BOUND });
    servers.push(server);
    const runner = await remoteFor(server.url, 'alice').newSession();
    const watched = watchWriters();
    const serverSide = new Map<number, Socket>();
    server.server.on('connection', (peer: Socket) => serverSide.set(peer.remotePort!, peer));
    const { socket, gone } = neverReading(server.origin, runner.id);
    const stalled = await watched.first;
    const turn = await runner.sendMessage('Write a lot');
    expect((await turn.result).status).toBe('completed');
    expect(await stalled.closed).toBe('overflow');
    // What waited behind the frame being written never went past the bound (or one frame alone).
    expect(stalled.peakBufferedBytes).toBeLessThanOrEqual(Math.max(BOUND, LARGEST_FRAME));
    expect(stalled.peakBufferedBytes).toBeGreaterThan(0);
    // The server lets the connection go by itself: it keeps nothing for a client that does not
    // read (the client, paused, would never close it).
    await waitFor(() => serverSide.get(socket.localPort!)?.destroyed === true, 'the stalled connection dropped');
    socket.destroy();
    await gone;
  });

  it('that reads 1 kB/s is disconnected, then reconnects and loses nothing', async () => {
    const provider = new ScriptedModelProvider({ script: [longAnswer()] });
    const server = await startHandler({ provider }, { maxStreamBufferBytes: BOUND });
    servers.push(server);
    const { writers, first: opened } = watchWriters();
    let slow = true;
    // The client's fetch reads event streams 1 kB a second while `slow` (the socket behind it fills up).
    const throttled: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      if (!response.headers.get('content-type')?.startsWith('text/event-stream')) return response;
      const reader = response.body!.getReader();
      let held: Uint8Array = new Uint8Array(0);
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          if (held.byteLength === 0) {
            const { done, value } = await reader.read();
            if (done) return controller.close();
            held = value;
          }
          if (slow) await new Promise((resolve) => setTimeout(resolve, 1_000));
          const size = slow ? 1024 : held.byteLength;
          controller.enqueue(held.subarray(0, size));
          held = held.subarray(size);
        },
        cancel: (reason) => reader.cancel(reason),
      });
      return new Response(body, { status: response.status, headers: response.headers });
    };
    const session = await remoteFor(server.url, 'alice', throttled).newSession();
    let conversation!: Conversation;
    session.conversation.subscribe((c) => (conversation = c));
    const turn = await session.sendMessage('Write a lot');
    const first = await opened;
    expect(await first.closed).toBe('overflow');
    expect(first.peakBufferedBytes).toBeLessThanOrEqual(Math.max(BOUND, LARGEST_FRAME));
    slow = false;
    const result = await turn.result;
    expect(result.status).toBe('completed');
    expect(writers.length).toBeGreaterThan(1);
    const answer = conversation.items.find((item) => item.kind === 'assistant');
    expect(answer).toMatchObject({ status: 'complete' });
    expect(answer?.kind === 'assistant' && answer.text.length).toBe(DELTA.length * DELTAS);
    await session.close();
  });

  it('whose stream has not drained for idleTimeoutMs is closed, and no longer keeps the session', async () => {
    const lock = new SharedSessionLock();
    const provider = new ScriptedModelProvider({ script: [longAnswer()] });
    // A bound the stream never reaches: only the stall closes it.
    const server = await startHandler(
      { provider, lock: lock.forHolder('A') },
      { maxStreamBufferBytes: 64 * 1024 * 1024, idleTimeoutMs: 1_000 },
    );
    servers.push(server);
    const runner = await remoteFor(server.url, 'alice').newSession();
    const watched = watchWriters();
    const { socket } = neverReading(server.origin, runner.id);
    const stalled = await watched.first;
    const result = await (await runner.sendMessage('Write a lot')).result;
    expect(result.error?.message ?? result.status).toBe('completed');
    expect(await stalled.closed).toBe('stalled');
    // Nothing else uses the session: it is released.
    for (let i = 0; i < 500 && lock.holderOf(runner.id) !== null; i++)
      await new Promise((resolve) => setTimeout(resolve, 10));
    expect(lock.holderOf(runner.id)).toBeNull();
    socket.destroy();
  });
});

describe('the stream writer', () => {
  it('names its heartbeat interval in a header, and sends a heartbeat only while nothing waits', async () => {
    const server = await startHandler({ provider: new ScriptedModelProvider() });
    servers.push(server);
    const session = await remoteFor(server.url, 'alice').newSession();
    const headers = { authorization: 'Bearer alice' };
    const plain = await fetch(`${server.url}/sessions/${session.id}/events`, { headers });
    expect(plain.headers.get('youyou-heartbeat-ms')).toBe('15000');
    await plain.body!.cancel();
    sseWriterSettings.heartbeatMs = 20;
    const quick = await fetch(`${server.url}/sessions/${session.id}/events`, { headers });
    expect(quick.headers.get('youyou-heartbeat-ms')).toBe('20');
    const reader = quick.body!.getReader();
    let text = '';
    while (!text.includes(': ping')) text += new TextDecoder().decode((await reader.read()).value);
    // The state came first; the heartbeat only after it was taken.
    expect(text.indexOf('event: state')).toBeLessThan(text.indexOf(': ping'));
    await reader.cancel();
  });
});
