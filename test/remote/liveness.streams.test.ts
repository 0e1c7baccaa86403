/**
 * A stream never waits for ever: one silent for three heartbeat intervals (the server's, from
 * its `youyou-heartbeat-ms` header) is aborted and taken up again from the last frame, losing and
 * repeating nothing; a turn whose server cannot be reached again settles `failed` with a
 * retryable `INTERNAL_ERROR` after `reconnectTimeoutMs`; and following the conversation restarts
 * after any failure (an error answer, a frame that breaks the protocol).
 */
import { describe, expect, it } from 'vitest';
import type { AgentEvent, Conversation } from '../../src/index.js';
import { RemoteAgent } from '../../src/remote.js';
import {
  completed,
  EMPTY,
  eventOf,
  frame,
  json,
  sse,
  stateOf,
  wireServer,
  USER,
} from './support/wire-server.js';

const RUNNING = { id: 't1', status: 'running' };
const start = frame('tok.1', 'patch', { length: 1, set: [{ at: 0, item: USER }], turn: RUNNING });

describe('a stalled stream', () => {
  it('is aborted after three heartbeat intervals and taken up again from the last frame: nothing lost or repeated', async () => {
    const lastEventIds: (string | undefined)[] = [];
    const url = await wireServer((req, res) => {
      if (req.method === 'POST' && req.url === '/agent/sessions')
        return json(res, 201, { ...stateOf(), eventId: 'tok.0' });
      if (req.url === '/agent/sessions/s1/turns') {
        sse(res, 100, 't1');
        // Two frames, then silence on a connection left open: no heartbeat, no end.
        res.write(start + frame('tok.2', 'event', eventOf(1, { type: 'text_delta', text: 'Hel' })));
        return;
      }
      if (req.url === '/agent/sessions/s1/events') {
        lastEventIds.push(req.headers['last-event-id'] as string | undefined);
        sse(res, 100);
        res.end(
          frame('tok.3', 'event', eventOf(2, { type: 'text_delta', text: 'lo' })) +
            frame(
              'tok.4',
              'event',
              eventOf(3, { type: 'turn_complete', usage: completed.usage, finishReason: 'stop' }),
            ) +
            frame('tok.5', 'patch', { length: 1, turn: null }) +
            frame('tok.6', 'result', completed),
        );
      }
    });
    const session = await new RemoteAgent({ url }).newSession();
    const turn = await session.sendMessage('hi');
    const events: AgentEvent[] = [];
    turn.events.subscribe((e) => events.push(e));
    const result = await turn.result;
    expect(result.status).toBe('completed');
    expect(lastEventIds).toEqual(['tok.2']);
    expect(events.map((e) => e.sequence)).toEqual([1, 2, 3]);
    expect(events.flatMap((e) => (e.payload.type === 'text_delta' ? [e.payload.text] : [])).join('')).toBe(
      'Hello',
    );
  });
});

describe('a server that cannot be reached again', () => {
  it("settles the turn's result failed with a retryable INTERNAL_ERROR after reconnectTimeoutMs", async () => {
    let reconnects = 0;
    const url = await wireServer((req, res) => {
      if (req.method === 'POST' && req.url === '/agent/sessions')
        return json(res, 201, { ...stateOf(), eventId: 'tok.0' });
      if (req.url === '/agent/sessions/s1/turns') {
        sse(res, 100, 't1');
        res.write(start);
        return;
      }
      // Accepted, never answered.
      if (req.url === '/agent/sessions/s1/events') reconnects++;
    });
    const session = await new RemoteAgent({
      url,
      requestTimeoutMs: 400,
      reconnectTimeoutMs: 1_500,
    }).newSession();
    const turn = await session.sendMessage('hi');
    const result = await turn.result;
    expect(result.status).toBe('failed');
    expect(result.error).toMatchObject({ code: 'INTERNAL_ERROR', retryable: true });
    expect(reconnects).toBeGreaterThan(0);
    expect(session.interruptedTurn).toBeNull();
    expect(session.activeTurn).toBeNull();
  });
});

describe('following the conversation', () => {
  it('restarts after an error answer and after a frame that breaks the protocol (then from a fresh state)', async () => {
    const lastEventIds: (string | undefined)[] = [];
    const url = await wireServer((req, res) => {
      if (req.method === 'GET' && req.url === '/agent/sessions/s1')
        return json(res, 200, { ...stateOf(), eventId: 'tok.0' });
      if (req.url !== '/agent/sessions/s1/events')
        return json(res, 404, { error: { code: 'INVALID_INPUT', message: 'no' } });
      lastEventIds.push(req.headers['last-event-id'] as string | undefined);
      const attempt = lastEventIds.length;
      if (attempt === 1) return json(res, 404, { error: { code: 'SESSION_NOT_FOUND', message: 'gone' } });
      sse(res, 100);
      if (attempt === 2) return void res.end(frame('tok.1', 'bogus', {}));
      res.write(frame('new.0', 'state', stateOf({ ...EMPTY, items: [USER] })));
    });
    const session = await new RemoteAgent({ url }).resumeSession('s1');
    const shown = new Promise<Conversation>((resolve) =>
      session.conversation.subscribe((c) => c.items.length > 0 && resolve(c)),
    );
    expect((await shown).items).toEqual([USER]);
    expect(lastEventIds).toEqual(['tok.0', 'tok.0', undefined]);
  });
});
