/**
 * The event-stream decoder the provider reads every response with, fed byte pieces the way a
 * network delivers them.
 */
import { describe, expect, it } from 'vitest';
import { serverSentEvents, type ServerSentEvent } from '../../../src/providers/openai/server-sent-events.js';

/** A body that delivers `pieces` (strings are UTF-8 encoded) one read at a time. */
function body(...pieces: (string | Uint8Array)[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    pull(controller) {
      const piece = pieces.shift();
      if (piece === undefined) controller.close();
      else controller.enqueue(typeof piece === 'string' ? encoder.encode(piece) : piece);
    },
  });
}

async function decode(stream: ReadableStream<Uint8Array>, signal = new AbortController().signal) {
  const events: ServerSentEvent[] = [];
  for await (const event of serverSentEvents(stream, signal)) events.push(event);
  return events;
}

describe('serverSentEvents', () => {
  it('dispatches on blank lines, joins data lines with \\n, and skips comments', async () => {
    expect(
      await decode(
        body(': keep-alive\n\ndata: {"a":1}\n\ndata: one\ndata: two\n\n: OPENROUTER PROCESSING\n\n'),
      ),
    ).toEqual([
      { event: 'message', data: '{"a":1}' },
      { event: 'message', data: 'one\ntwo' },
    ]);
  });

  it('reads `event:` types, drops one space after the colon only, and ignores other fields', async () => {
    expect(
      await decode(body('event: error\ndata:{"x":1}\nid: 7\nretry: 10\n\ndata:  two spaces\nfoo: bar\n\n')),
    ).toEqual([
      { event: 'error', data: '{"x":1}' },
      { event: 'message', data: ' two spaces' },
    ]);
  });

  it('accepts CRLF, CR and LF line ends, also a CRLF split across two reads', async () => {
    expect(await decode(body('data: a\r\n\r\ndata: b\r\rdata: c\n\ndata: d\r', '\n\r', '\n'))).toEqual([
      { event: 'message', data: 'a' },
      { event: 'message', data: 'b' },
      { event: 'message', data: 'c' },
      { event: 'message', data: 'd' },
    ]);
  });

  it('decodes a UTF-8 character split across reads whole, and drops a leading byte-order mark', async () => {
    const bytes = new TextEncoder().encode('\uFEFFdata: 😊 °C\n\n');
    expect(await decode(body(bytes.subarray(0, 2), bytes.subarray(2, 10), bytes.subarray(10)))).toEqual([
      { event: 'message', data: '😊 °C' },
    ]);
  });

  it('does not dispatch an event without data, nor one the body ends in the middle of', async () => {
    expect(await decode(body('event: ping\n\ndata: whole\n\ndata: cut sh'))).toEqual([
      { event: 'message', data: 'whole' },
    ]);
    expect(await decode(body('data: [DONE]\n'))).toEqual([]);
  });

  it('cancels the body when the consumer stops early', async () => {
    let cancelled = false;
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('data: first\n\n'));
      },
      cancel() {
        cancelled = true;
      },
    });
    for await (const event of serverSentEvents(stream, new AbortController().signal)) {
      expect(event.data).toBe('first');
      break;
    }
    expect(cancelled).toBe(true);
  });

  it('throws an AbortError and cancels the body when the signal aborts during a read', async () => {
    let cancelled = false;
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('data: first\n\n'));
      },
      cancel() {
        cancelled = true;
      },
    });
    const controller = new AbortController();
    const events = serverSentEvents(stream, controller.signal);
    expect((await events.next()).value).toEqual({ event: 'message', data: 'first' });
    const pending = events.next();
    controller.abort();
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
    expect(cancelled).toBe(true);
  });
});
