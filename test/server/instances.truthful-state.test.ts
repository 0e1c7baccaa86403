/**
 * A non-holding instance tells the truth about a session another instance holds: a turn waiting
 * for a decision shows as awaiting approval (the turn and its tool item), both in
 * `GET /sessions/:id` and in the follower's first state, and an unfinished call is `mutating`
 * as the agent's tools register it (here before it ever started, so no stored marker says so).
 */
import { expect, it } from 'vitest';
import type { SessionState } from '../../src/remote/wire.js';
import { SharedSessionLock } from '../support/shared-lock.js';
import { eventOf, instancesWorld, within } from './instances-world.js';
import { remoteFor, serversClosedAfterEach, startHandler, testWorld } from './support.js';

const servers = serversClosedAfterEach();

/** The data of the first `state` frame of an SSE answer. */
async function firstState(response: Response): Promise<SessionState> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  for (;;) {
    const match = /event: state\ndata: (.*)\n\n/.exec(text);
    if (match) {
      void reader.cancel();
      return JSON.parse(match[1]!) as SessionState;
    }
    const { done, value } = await reader.read();
    if (done) throw new Error(`no state frame in: ${text}`);
    text += decoder.decode(value, { stream: true });
  }
}

it('a pending approval on A shows as awaiting approval on B, with mutating from the tool', async () => {
  const { provider, transfer } = instancesWorld();
  const world = testWorld();
  const lock = new SharedSessionLock();
  const a = await startHandler({ provider, world, lock: lock.forHolder('A'), tools: [transfer] });
  const b = await startHandler({ provider, world, lock: lock.forHolder('B'), tools: [transfer] });
  servers.push(a, b);
  const session = await remoteFor(a.url, 'alice').newSession();
  const turn = await session.sendMessage('pay 5');
  await within(eventOf(turn, 'approval_requested'), 'the approval request');

  const headers = { authorization: 'Bearer alice' };
  const read = (await (await fetch(`${b.url}/sessions/${session.id}`, { headers })).json()) as SessionState;
  const followed = await within(
    firstState(await fetch(`${b.url}/sessions/${session.id}/events`, { headers })),
    'the follower state',
  );
  for (const state of [read, followed]) {
    expect(state.conversation.turn).toEqual({ id: turn.id, status: 'awaiting_approval' });
    const tool = state.conversation.items.find((item) => item.kind === 'tool');
    expect(tool).toMatchObject({ callId: 'pay-5', status: 'awaiting_approval' });
    expect(state.interruptedTurn?.pendingApprovals.map((p) => p.callId)).toEqual(['pay-5']);
    expect(state.interruptedTurn?.unfinishedToolCalls).toEqual([
      { callId: 'pay-5', toolName: 'transfer', mutating: true, maybeExecuted: false },
    ]);
  }
  expect(lock.holderOf(session.id)).toBe('A');

  await turn.approve('pay-5');
  expect((await turn.result).status).toBe('completed');
});
