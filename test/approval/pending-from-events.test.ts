/**
 * Reading an unfinished turn's approvals back from what a live turn stored: the pending list
 * equals what `turn.pendingApprovals` showed, and the batch holds the decisions made so far.
 */
import { describe, expect, it } from 'vitest';
import { InMemorySessionStorage, type SessionEvent } from '../../src/index.js';
import { approvalsFromEvents } from '../../src/approval/pending-from-events.js';
import { approvalRulesFromEvents } from '../../src/approval/approval-records.js';
import { reply } from '../../src/testing/index.js';
import { createTestAgent, guardedTool, recordingTool } from '../support/agent.js';
import { approvalRequested } from '../support/events.js';

async function stoppedMidApproval() {
  const { tool } = guardedTool('notes');
  const free = recordingTool('free');
  const sessionStorage = new InMemorySessionStorage();
  const { agent } = await createTestAgent({
    tools: [tool, free.tool],
    sessionStorage,
    script: [
      reply.toolCalls([
        { name: 'notes', arguments: { text: 'a' }, callId: 'c1' },
        { name: 'notes', arguments: { text: 'b' }, callId: 'c2' },
        { name: 'free', arguments: { text: 'c' }, callId: 'c3' },
      ]),
      reply.text('done'),
    ],
  });
  const session = await agent.newSession();
  const turn = await session.sendMessage('go');
  await approvalRequested(turn, 'c2');
  const load = async () => (await sessionStorage.loadSession(session.id)) as SessionEvent[];
  return { agent, turn, load };
}

describe('pending approvals from stored events', () => {
  it('lists the requested calls without a decision, as turn.pendingApprovals does', async () => {
    const { agent, turn, load } = await stoppedMidApproval();
    const events = await load();
    expect(approvalsFromEvents(events, turn.id).pending).toEqual(turn.pendingApprovals);
    expect(approvalsFromEvents(events, 'another-turn').pending).toEqual([]);
    expect(approvalsFromEvents(events, turn.id).batch).toEqual({
      calls: [
        { callId: 'c1', toolName: 'notes' },
        { callId: 'c2', toolName: 'notes' },
        { callId: 'c3', toolName: 'free' },
      ],
      awaiting: [
        { callId: 'c1', toolName: 'notes', requestedAt: turn.pendingApprovals[0]!.requestedAt },
        { callId: 'c2', toolName: 'notes', requestedAt: turn.pendingApprovals[1]!.requestedAt },
      ],
      decided: [],
    });

    await turn.deny('c1', { reason: 'no', always: false });
    const afterOne = await load();
    expect(approvalsFromEvents(afterOne, turn.id).pending).toEqual(turn.pendingApprovals);
    expect(approvalsFromEvents(afterOne, turn.id).pending.map((p) => p.callId)).toEqual(['c2']);
    expect(approvalsFromEvents(afterOne, turn.id).batch).toMatchObject({
      awaiting: [{ callId: 'c2' }],
      decided: [{ callId: 'c1', approved: false, by: 'user', reason: 'no' }],
    });

    await turn.approve('c2', { always: true });
    await turn.result;
    const finished = await load();
    // Every call has its result: nothing waits, and there is no batch to continue.
    expect(approvalsFromEvents(finished, turn.id).pending).toEqual([]);
    expect(approvalsFromEvents(finished, turn.id).batch).toBeNull();
    expect(approvalRulesFromEvents(finished)).toEqual(new Map([['notes', { approved: true }]]));
    await agent.shutdown();
  });

  it('ignores records that do not parse', () => {
    const events: SessionEvent[] = [
      { timestamp: 't', payload: { type: 'user_message', content: [{ type: 'text', text: 'go' }] } },
      { timestamp: 't', payload: { type: 'tool_call', callId: 'c1', toolName: 'x', arguments: {} } },
      { timestamp: 't', payload: { type: 'metadata', key: 'approval_requested', value: { callId: 'c1' } } },
      { timestamp: 't', payload: { type: 'metadata', key: 'approval_rule', value: 'allow everything' } },
    ];
    expect(approvalsFromEvents(events, 'turn').pending).toEqual([]);
    expect(approvalRulesFromEvents(events)).toEqual(new Map());
  });
});
