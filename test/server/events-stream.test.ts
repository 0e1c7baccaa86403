/**
 * The event stream by raw HTTP: every frame has an id; `Last-Event-ID` replays exactly the frames
 * after it; without one (or with an id of another copy) the stream starts with the current state.
 * And `toNodeListener`: the request's signal aborts when the client goes away.
 */
import { describe, expect, it } from 'vitest';
import { ScriptedModelProvider, type ScriptItem } from '../../src/testing/index.js';
import { deferred } from '../support/waits.js';
import { serve, startHandler, serversClosedAfterEach } from './support.js';

const servers = serversClosedAfterEach();

const auth = { authorization: 'Bearer alice' };

interface RawFrame {
  id: string;
  event: string;
  data: string;
}

/** Reads SSE frames from `response` until `count` frames (or the end). */
async function frames(response: Response, count = Number.POSITIVE_INFINITY): Promise<RawFrame[]> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  const out: RawFrame[] = [];
  while (out.length < count) {
    const { done, value } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
    let end: number;
    while ((end = text.indexOf('\n\n')) >= 0 && out.length < count) {
      const block = text.slice(0, end);
      text = text.slice(end + 2);
      const field = (name: string) =>
        block
          .split('\n')
          .find((l) => l.startsWith(`${name}: `))
          ?.slice(name.length + 2) ?? '';
      if (block.startsWith(':')) continue;
      out.push({ id: field('id'), event: field('event'), data: field('data') });
    }
  }
  void reader.cancel();
  return out;
}

/** The text of the answer, in four deltas. */
const DELTAS = ['one ', 'two ', 'three ', 'four'];

/**
 * A session whose turn streams {@link DELTAS}; with `hold`, the answer then waits for it, so the
 * turn is still running while the test reads its frames.
 */
async function withTurn(hold?: Promise<void>) {
  const items: ScriptItem[] = DELTAS.map((text) => ({ type: 'text_delta', text }));
  if (hold) items.push({ type: 'wait', until: hold });
  items.push({ type: 'done', finishReason: 'stop' });
  const provider = new ScriptedModelProvider({ script: [items] });
  const server = await startHandler({ provider });
  servers.push(server);
  const created = (await (
    await fetch(`${server.url}/sessions`, { method: 'POST', headers: auth })
  ).json()) as {
    id: string;
    eventId: string;
  };
  const turn = await fetch(`${server.url}/sessions/${created.id}/turns`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json', 'last-event-id': created.eventId },
    body: JSON.stringify({ input: 'count' }),
  });
  return { server, id: created.id, created, turn };
}

/** The frames of a whole turn. */
async function turnFrames() {
  const { turn, ...rest } = await withTurn();
  return { ...rest, turnFrames: await frames(turn) };
}

/** The bytes of the AI SDK's UI message stream frame for one text delta. */
const aiSdkFrameBytes = (text: string) =>
  new TextEncoder().encode(`data: ${JSON.stringify({ type: 'text-delta', id: '0', delta: text })}\n\n`)
    .byteLength;

/** The bytes of a raw frame as it went on the wire. */
const frameBytes = (f: RawFrame) =>
  new TextEncoder().encode(`id: ${f.id}\nevent: ${f.event}\ndata: ${f.data}\n\n`).byteLength;

describe('the event stream', () => {
  it('gives every frame an increasing id, and ends a turn with its result (without the history)', async () => {
    const { turnFrames: all } = await turnFrames();
    const seqs = all.map((f) => Number(f.id.split('.')[1]));
    expect(seqs).toEqual(seqs.map((_, i) => seqs[0]! + i));
    expect(seqs[0]).toBe(1);
    expect(all.at(-1)?.event).toBe('result');
    expect(new Set(all.map((f) => f.event))).toEqual(new Set(['event', 'delta', 'patch', 'result']));
    const result = JSON.parse(all.at(-1)!.data) as Record<string, unknown>;
    expect(result).toMatchObject({ status: 'completed' });
    expect(result).not.toHaveProperty('messages');
  });

  it('sends one frame per delta, with the event and its change: a short delta frame after the first', async () => {
    const { turnFrames: all } = await turnFrames();
    const carrying = (text: string) =>
      all.filter((f) => {
        const data = JSON.parse(f.data) as {
          t?: string;
          event?: { payload: { type: string; text?: string } };
        };
        return (
          data.t === text || (data.event?.payload.type === 'text_delta' && data.event.payload.text === text)
        );
      });
    for (const text of DELTAS) expect(carrying(text)).toHaveLength(1);
    // The first delta opens the answer item (an event frame with its patch); each later one is a delta frame.
    const first = JSON.parse(carrying(DELTAS[0]!)[0]!.data) as { patch?: { set?: unknown[] } };
    expect(carrying(DELTAS[0]!)[0]!.event).toBe('event');
    expect(first.patch?.set).toHaveLength(1);
    for (const text of DELTAS.slice(1)) {
      const [frame] = carrying(text);
      expect(frame!.event).toBe('delta');
      // No session id, turn id or time per delta.
      expect(Object.keys(JSON.parse(frame!.data) as object).sort()).toEqual(['i', 's', 't']);
      expect(frameBytes(frame!)).toBeLessThanOrEqual(2 * aiSdkFrameBytes(text));
    }
    // No frame carries the whole history once per turn.
    const messagesSent = all.flatMap((f) => {
      const data = JSON.parse(f.data) as { messages?: unknown; patch?: { messages?: { insert: unknown[] } } };
      return (
        data.patch?.messages?.insert ?? (data as { messages?: { insert: unknown[] } }).messages?.insert ?? []
      );
    });
    expect(messagesSent).toHaveLength(2); // the user's message and the answer, each once
  });

  it('replays exactly the frames after Last-Event-ID while the turn runs', async () => {
    const release = deferred();
    const { server, id, turn } = await withTurn(release.promise);
    // Everything up to the held answer: the start, the four deltas.
    const running = await frames(turn, 6);
    for (const k of [0, 3, running.length - 2]) {
      const replay = await fetch(`${server.url}/sessions/${id}/events`, {
        headers: { ...auth, 'last-event-id': running[k]!.id },
      });
      const got = await frames(replay, running.length - k - 1);
      expect(got).toEqual(running.slice(k + 1));
    }
    release.resolve();
  });

  it('keeps no frames of an ended turn: a reconnect from inside it gets the state, with the last turn', async () => {
    const { server, id, turnFrames: all } = await turnFrames();
    const turnId = (JSON.parse(all.at(-1)!.data) as { turnId: string }).turnId;
    for (const k of [0, all.length - 2]) {
      const response = await fetch(`${server.url}/sessions/${id}/events`, {
        headers: { ...auth, 'last-event-id': all[k]!.id },
      });
      const [first] = await frames(response, 1);
      expect(first!.event).toBe('state');
      const state = JSON.parse(first!.data) as { lastTurn: { turnId: string; result: { status: string } } };
      expect(state.lastTurn).toMatchObject({ turnId, result: { turnId, status: 'completed' } });
      expect(state.lastTurn.result).not.toHaveProperty('messages');
    }
  });

  it('starts with the current state without Last-Event-ID, or with an id of another copy', async () => {
    const { server, id, turnFrames: all } = await turnFrames();
    const state = (await (await fetch(`${server.url}/sessions/${id}`, { headers: auth })).json()) as {
      conversation: unknown;
      eventId: string;
    };
    expect(state.eventId).toBe(all.at(-1)!.id);
    for (const lastEventId of [undefined, 'othercopy.3', 'garbage']) {
      const response = await fetch(`${server.url}/sessions/${id}/events`, {
        headers: { ...auth, ...(lastEventId && { 'last-event-id': lastEventId }) },
      });
      const [first] = await frames(response, 1);
      expect(first!.event).toBe('state');
      expect(first!.id).toBe(state.eventId);
      expect((JSON.parse(first!.data) as { conversation: unknown }).conversation).toEqual(state.conversation);
    }
  });
});

describe('toNodeListener', () => {
  it("aborts the request's signal when the client goes away", async () => {
    let aborted!: () => void;
    const gone = new Promise<void>((resolve) => (aborted = resolve));
    const server = await serve(async (request) => {
      request.signal.addEventListener('abort', () => aborted());
      return new Response(new ReadableStream({ start: (c) => c.enqueue(new TextEncoder().encode('hello')) }));
    }, '');
    servers.push(server);
    const controller = new AbortController();
    const response = await fetch(server.url, { signal: controller.signal });
    const reader = response.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('hello');
    controller.abort();
    await gone;
  });
});
