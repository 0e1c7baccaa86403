/**
 * The event stream by raw HTTP: every frame has an id; `Last-Event-ID` replays exactly the frames
 * after it; without one (or with an id of another copy) the stream starts with the current state.
 * And `toNodeListener`: the request's signal aborts when the client goes away.
 */
import { describe, expect, it } from 'vitest';
import { reply, ScriptedModelProvider } from '../../src/testing/index.js';
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

async function withTurn() {
  const provider = new ScriptedModelProvider({ script: [reply.text('one two three four', { chunks: 4 })] });
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
  return { server, id: created.id, created, turnFrames: await frames(turn) };
}

describe('the event stream', () => {
  it('gives every frame an increasing id, and ends a turn with its result', async () => {
    const { turnFrames } = await withTurn();
    const seqs = turnFrames.map((f) => Number(f.id.split('.')[1]));
    expect(seqs).toEqual(seqs.map((_, i) => seqs[0]! + i));
    expect(seqs[0]).toBe(1);
    expect(turnFrames.at(-1)?.event).toBe('result');
    expect(new Set(turnFrames.map((f) => f.event))).toEqual(new Set(['event', 'patch', 'result']));
  });

  it('replays exactly the frames after Last-Event-ID', async () => {
    const { server, id, turnFrames } = await withTurn();
    for (const k of [0, 3, turnFrames.length - 2]) {
      const replay = await fetch(`${server.url}/sessions/${id}/events`, {
        headers: { ...auth, 'last-event-id': turnFrames[k]!.id },
      });
      const got = await frames(replay, turnFrames.length - k - 1);
      expect(got).toEqual(turnFrames.slice(k + 1));
    }
  });

  it('starts with the current state without Last-Event-ID, or with an id of another copy', async () => {
    const { server, id, turnFrames } = await withTurn();
    const state = (await (await fetch(`${server.url}/sessions/${id}`, { headers: auth })).json()) as {
      conversation: unknown;
      eventId: string;
    };
    expect(state.eventId).toBe(turnFrames.at(-1)!.id);
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
