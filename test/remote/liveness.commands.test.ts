/**
 * A server that accepts a request and never answers it, or sends the head of an answer and never
 * its body, cannot hold a command: each rejects with a retryable `INTERNAL_ERROR` once
 * `requestTimeoutMs` has passed. The options are checked.
 */
import { describe, expect, it } from 'vitest';
import { RemoteAgent } from '../../src/remote.js';
import { EMPTY, frame, json, sse, stateOf, wireServer } from './support/wire-server.js';

const RUNNING = {
  ...EMPTY,
  items: [{ kind: 'user', id: 'message-0', content: [{ type: 'text', text: 'hi' }] }],
  turn: { id: 't1', status: 'running' },
};

/**
 * A server that answers `POST /sessions` and a turn's head (one frame, then silence), and holds
 * every other request: without an answer, or (`halfOpen`) with a head and half a body.
 */
async function silentServer(halfOpen: boolean): Promise<RemoteAgent> {
  const url = await wireServer((req, res) => {
    if (req.method === 'POST' && req.url === '/agent/sessions')
      return json(res, 201, { ...stateOf(), eventId: 'tok.0' });
    if (req.method === 'POST' && req.url === '/agent/sessions/s1/turns') {
      sse(res, undefined, 't1');
      res.write(
        frame('tok.1', 'patch', { length: 1, set: [{ at: 0, item: RUNNING.items[0] }], turn: RUNNING.turn }),
      );
      return;
    }
    if (req.url === '/agent/sessions/s1/events') return; // the follow stream: never answered
    if (halfOpen) {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
      res.write('{"id":');
    }
  });
  // Long enough for the answers that do come on a loaded machine, short for a test.
  return new RemoteAgent({ url, requestTimeoutMs: 500 });
}

const TIMED_OUT = { code: 'INTERNAL_ERROR', retryable: true };

describe.each([
  ['never answers', false],
  ['sends a head and never the body', true],
])('a server that %s', (_name, halfOpen) => {
  it('fails every command with a retryable INTERNAL_ERROR past requestTimeoutMs', async () => {
    const agent = await silentServer(halfOpen);
    const session = await agent.newSession();
    const turn = await session.sendMessage('hi');
    const commands: [string, () => Promise<unknown>][] = [
      ['resume', () => agent.resumeSession('s1')],
      ['list', () => agent.listSessions(null, 10)],
      ['delete', () => agent.deleteSession('s1')],
      ['approve', () => turn.approve('c1')],
      ['deny', () => turn.deny('c1')],
      ['discard', () => session.discardInterruptedTurn()],
      ['close', () => session.close()],
    ];
    for (const [name, command] of commands) await expect(command(), name).rejects.toMatchObject(TIMED_OUT);
  });
});

describe('a server that never answers a new session', () => {
  it('fails newSession past requestTimeoutMs', async () => {
    const url = await wireServer(() => {});
    await expect(new RemoteAgent({ url, requestTimeoutMs: 100 }).newSession()).rejects.toMatchObject(
      TIMED_OUT,
    );
  });
});

describe('the options', () => {
  it.each([
    ['a negative requestTimeoutMs', { requestTimeoutMs: -1 }],
    ['a fractional reconnectTimeoutMs', { reconnectTimeoutMs: 1.5 }],
    ['a requestTimeoutMs that is text', { requestTimeoutMs: '30' }],
  ])('%s is INVALID_INPUT', (_name, options) => {
    expect(() => new RemoteAgent({ url: 'http://127.0.0.1:1/agent', ...options } as never)).toThrow(
      expect.objectContaining({ code: 'INVALID_INPUT' }),
    );
  });
});
