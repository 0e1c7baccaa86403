/**
 * A reload while a turn waits for approval: the page dies after the card appeared (its Agent is
 * simply abandoned), a new Agent resumes the stored events, finds the pending approvals in
 * `session.interruptedTurn`, and `continueTurn()` waits for them again; the tool runs exactly once.
 */
import 'fake-indexeddb/auto';
import { IDBFactory } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';
import { IndexedDbSessionStorage } from '../../src/index.js';
import { reply } from '../../src/testing/index.js';
import { createTestAgent, guardedTool } from '../support/agent.js';
import { expectAgentError } from '../support/errors.js';
import { approvalRequested, eventsOf } from '../support/events.js';
import { storedCopy, toolPairingProblems } from '../support/history.js';

/** Runs a turn until its calls are announced (deciding `c1` first when asked), then "reloads". */
async function reloadWhileAwaiting(options: { decideFirst?: 'approve' | 'deny' } = {}) {
  const page1 = guardedTool('notes');
  const first = await createTestAgent({
    tools: [page1.tool],
    script: [
      reply.toolCalls([
        { name: 'notes', arguments: { text: 'a' }, callId: 'c1' },
        { name: 'notes', arguments: { text: 'b' }, callId: 'c2' },
      ]),
    ],
  });
  const session = await first.agent.newSession();
  const turn = await session.sendMessage('note a and b');
  await approvalRequested(turn, 'c2');
  if (options.decideFirst === 'approve') await turn.approve('c1');
  if (options.decideFirst === 'deny') await turn.deny('c1', { reason: 'not a' });
  const livePending = turn.pendingApprovals;
  const storage = await storedCopy(first.sessionStorage!, session.id);

  const page2 = guardedTool('notes');
  const second = await createTestAgent({
    tools: [page2.tool],
    sessionStorage: storage,
    script: [reply.text('done')],
  });
  const resumed = await second.agent.resumeSession(session.id);
  return { resumed, livePending, turnId: turn.id, page1, page2, ...second };
}

describe('a reload while a turn awaits approval', () => {
  it('the pending approvals are in interruptedTurn; sendMessage is APPROVAL_PENDING', async () => {
    const { resumed, livePending, turnId, agent } = await reloadWhileAwaiting();
    expect(resumed.interruptedTurn).toEqual({
      turnId,
      reason: 'awaiting_approval',
      pendingApprovals: livePending,
      unfinishedToolCalls: [
        { callId: 'c1', toolName: 'notes', mutating: true, maybeExecuted: false },
        { callId: 'c2', toolName: 'notes', mutating: true, maybeExecuted: false },
      ],
      partialText: null,
    });
    expect(livePending.map((p) => p.callId)).toEqual(['c1', 'c2']);
    expect(toolPairingProblems(resumed.messages)).toEqual([]);
    await expectAgentError(resumed.sendMessage('something else'), 'APPROVAL_PENDING', 'c1', 'c2');
    await agent.shutdown();
  });

  it('continueTurn re-enters the wait: the cards come back, and each approved call runs exactly once', async () => {
    const { resumed, livePending, turnId, page1, page2, provider, agent } = await reloadWhileAwaiting();
    const turn = await resumed.continueTurn();
    expect(turn.id).toBe(turnId);
    await approvalRequested(turn, 'c2');
    // The same requests, as stored: requested when the first page asked.
    expect(turn.pendingApprovals).toEqual(livePending);
    await turn.approve('c1');
    await turn.deny('c2', { reason: 'not b' });
    const events = await eventsOf(turn);
    expect((await turn.result).status).toBe('completed');
    expect(events[0]!.payload).toEqual({ type: 'turn_resumed', reason: 'awaiting_approval' });
    expect(page1.log).toEqual([]);
    expect(page2.log).toEqual(['start:a', 'end:a']);
    expect(provider.requests[0]!.messages.filter((m) => m.type === 'tool_result')).toEqual([
      { type: 'tool_result', callId: 'c1', content: 'a', isError: false },
      { type: 'tool_result', callId: 'c2', content: 'Tool call denied by the user: not b', isError: true },
    ]);
    await agent.shutdown();
  });

  it('a decision made before the reload holds: only the undecided call is asked again', async () => {
    const { resumed, page2, provider, agent } = await reloadWhileAwaiting({ decideFirst: 'deny' });
    expect(resumed.interruptedTurn?.pendingApprovals.map((p) => p.callId)).toEqual(['c2']);
    const turn = await resumed.continueTurn();
    await approvalRequested(turn, 'c2');
    expect(turn.pendingApprovals.map((p) => p.callId)).toEqual(['c2']);
    await turn.approve('c2');
    await turn.result;
    expect(page2.log).toEqual(['start:b', 'end:b']);
    expect(provider.requests[0]!.messages.filter((m) => m.type === 'tool_result')).toEqual([
      { type: 'tool_result', callId: 'c1', content: 'Tool call denied by the user: not a', isError: true },
      { type: 'tool_result', callId: 'c2', content: 'b', isError: false },
    ]);
    await agent.shutdown();
  });
});

describe('the same reload on IndexedDB (a new Agent on the same IDBFactory)', () => {
  it('the tool waits again after the reload and runs exactly once, when approved', async () => {
    const factory = new IDBFactory();
    const ran: string[] = [];
    const notes = (page: string) =>
      guardedTool('notes', { run: async (text) => (ran.push(`${page}:${text}`), text) }).tool;

    const first = await createTestAgent({
      tools: [notes('page 1')],
      sessionStorage: new IndexedDbSessionStorage({ indexedDB: factory, dbName: 'reload' }),
      script: [reply.toolCalls([{ name: 'notes', arguments: { text: 'milk' }, callId: 'c1' }])],
    });
    const session = await first.agent.newSession();
    await approvalRequested(await session.sendMessage('note milk'), 'c1');
    // The page dies here: its agent is abandoned, never shut down.

    const second = await createTestAgent({
      tools: [notes('page 2')],
      sessionStorage: new IndexedDbSessionStorage({ indexedDB: factory, dbName: 'reload' }),
      script: [reply.text('Noted.')],
    });
    const resumed = await second.agent.resumeSession(session.id);
    expect(resumed.interruptedTurn).toMatchObject({
      reason: 'awaiting_approval',
      pendingApprovals: [{ callId: 'c1', toolName: 'notes', arguments: { text: 'milk' } }],
    });
    const turn = await resumed.continueTurn();
    await approvalRequested(turn, 'c1');
    expect(ran).toEqual([]);
    await turn.approve('c1');
    expect((await turn.result).status).toBe('completed');
    expect(ran).toEqual(['page 2:milk']);
    expect(toolPairingProblems(resumed.messages)).toEqual([]);
    await second.agent.shutdown();
  });
});
