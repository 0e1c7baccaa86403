/**
 * A malformed or hostile server is a clear error for the client, never a crash or a corrupted
 * conversation: a frame of the wrong types, a huge frame, an id going backwards, an unknown
 * frame, a patch that does not fit, a non-JSON frame — each fails the turn with `INVALID_INPUT`
 * ("the server sent an invalid message"), and the conversation stays as the last valid frame left it.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { AgentError } from '../../src/index.js';
import type { Conversation } from '../../src/index.js';
import { RemoteAgent } from '../../src/remote.js';

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

const EMPTY: Conversation = {
  items: [],
  turn: null,
  usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
  cost: null,
  context: { estimatedTokens: 0, contextWindow: 1000, compactAt: 800 },
};
const STATE = { id: 's1', messages: [], conversation: EMPTY, interruptedTurn: null, eventId: 'tok.0' };
const USER = { kind: 'user', id: 'message-0', content: [{ type: 'text', text: 'hi' }] };

const frame = (id: string, event: string, data: unknown) =>
  `id: ${id}\nevent: ${event}\ndata: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;

/** A server whose turn stream is one valid patch (a user item, a running turn) and then `bad`. */
async function hostile(bad: string, stateBody: unknown = STATE): Promise<RemoteAgent> {
  const server = createServer((req, res) => {
    req.resume();
    if (req.url === '/agent/sessions' && req.method === 'POST') {
      res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify(stateBody));
      return;
    }
    if (req.url === '/agent/sessions/s1/turns') {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'youyou-turn-id': 't1' });
      res.write(
        frame('tok.1', 'patch', {
          length: 1,
          set: [{ at: 0, item: USER }],
          turn: { id: 't1', status: 'running' },
        }),
      );
      res.end(bad);
      return;
    }
    res
      .writeHead(404, { 'content-type': 'application/json' })
      .end('{"error":{"code":"INVALID_INPUT","message":"no"}}');
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return new RemoteAgent({ url: `http://127.0.0.1:${port}/agent` });
}

const event = (sequence: unknown, payload: unknown) => ({
  sessionId: 's1',
  turnId: 't1',
  timestamp: '2026-12-01T00:00:00.000Z',
  sequence,
  payload,
});

const cases: [string, string][] = [
  ['an event of the wrong types', frame('tok.2', 'event', event('seven', { type: 'text_delta', text: 1 }))],
  ['an event of an unknown payload type', frame('tok.2', 'event', event(1, { type: 'rm_rf' }))],
  ['a huge frame', frame('tok.2', 'event', `"${'x'.repeat(9 * 1024 * 1024)}"`)],
  ['an id going backwards', frame('tok.3', 'patch', { length: 1 }) + frame('tok.2', 'patch', { length: 1 })],
  ['an unknown frame', frame('tok.2', 'exec', { command: 'x' })],
  ['a frame named after a property of every object', frame('tok.2', 'toString', {})],
  ['a frame without an id', 'event: patch\ndata: {"length":1}\n\n'],
  [
    'a patch that does not fit',
    frame('tok.2', 'patch', { length: 1, grow: [{ at: 0, text: 'more', reasoning: '' }] }),
  ],
  ['a patch with a hole', frame('tok.2', 'patch', { length: 3, set: [{ at: 2, item: USER }] })],
  ['a frame that is not JSON', frame('tok.2', 'event', '{not json')],
  [
    'an event of another session',
    frame('tok.2', 'event', { ...event(1, { type: 'turn_cancelled' }), sessionId: 'other' }),
  ],
  ['a frame of another copy without a state', frame('zzz.9', 'patch', { length: 1 })],
];

describe('a hostile server', () => {
  it.each(cases)('%s fails the turn clearly and leaves the conversation as it was', async (_name, bad) => {
    const session = await (await hostile(bad)).newSession();
    const states: Conversation[] = [];
    session.conversation.subscribe((c) => states.push(c));
    const turn = await session.sendMessage('hi');
    const result = await turn.result;
    expect(result.status).toBe('failed');
    expect(AgentError.isInstance(result.error)).toBe(true);
    expect(result.error?.code).toBe('INVALID_INPUT');
    expect(result.error?.message).toContain('the server sent an invalid message');
    const last = states.at(-1)!;
    expect(last.items).toEqual([USER]);
    expect(last.turn).toEqual({ id: 't1', status: 'running' });
  });

  it('a session state of the wrong shape rejects newSession with INVALID_INPUT', async () => {
    const agent = await hostile('', { ...STATE, conversation: { items: 'all of them' } });
    await expect(agent.newSession()).rejects.toMatchObject({ code: 'INVALID_INPUT' });
  });
});
