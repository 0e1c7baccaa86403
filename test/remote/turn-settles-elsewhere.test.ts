/**
 * A turn that ended while this client's stream was down (finished, approved or cancelled through
 * another device or instance) settles with its real result when the next state names it as its
 * `lastTurn`; a turn the state shows interrupted settles `failed` with `SESSION_CLOSED` and stays
 * in `session.interruptedTurn`.
 */
import { describe, expect, it } from 'vitest';
import { RemoteAgent } from '../../src/remote.js';
import { completed, EMPTY, frame, json, sse, stateOf, wireServer, USER } from './support/wire-server.js';

/** A server whose turn stream ends after its first frame; the reconnect answers `state`. */
async function reconnectsTo(state: unknown): Promise<RemoteAgent> {
  const url = await wireServer((req, res) => {
    if (req.method === 'POST' && req.url === '/agent/sessions')
      return json(res, 201, { ...stateOf(), eventId: 'tok.0' });
    if (req.url === '/agent/sessions/s1/turns') {
      sse(res, 100, 't1');
      res.end(
        frame('tok.1', 'patch', {
          length: 1,
          set: [{ at: 0, item: USER }],
          turn: { id: 't1', status: 'running' },
        }),
      );
      return;
    }
    if (req.url === '/agent/sessions/s1/events') {
      sse(res, 100);
      res.write(frame('other.0', 'state', state));
    }
  });
  return new RemoteAgent({ url });
}

describe('a state after a reconnect', () => {
  it('that names the turn as its lastTurn settles the turn with that result', async () => {
    const result = { ...completed, output: { ok: true } };
    const agent = await reconnectsTo(stateOf({ ...EMPTY, items: [USER] }, { lastTurn: { turnId: result.turnId, result } }));
    const session = await agent.newSession();
    const turn = await session.sendMessage('hi');
    expect(await turn.result).toEqual({
      status: 'completed',
      usage: completed.usage,
      cost: null,
      output: { ok: true },
    });
  });

  it('that shows the turn interrupted settles it failed SESSION_CLOSED; it stays in interruptedTurn', async () => {
    const interruptedTurn = {
      turnId: 't1',
      reason: 'awaiting_model',
      pendingApprovals: [],
      unfinishedToolCalls: [],
      partialText: 'Hal',
    };
    const agent = await reconnectsTo(
      stateOf({ ...EMPTY, items: [USER] }, { interruptedTurn, lastTurn: null }),
    );
    const session = await agent.newSession();
    const turn = await session.sendMessage('hi');
    const result = await turn.result;
    expect(result.status).toBe('failed');
    expect(result.error?.code).toBe('SESSION_CLOSED');
    expect(session.interruptedTurn).toEqual(interruptedTurn);
  });
});
