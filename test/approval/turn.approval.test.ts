/**
 * Human approval through the public API: a scripted model asks for tools, the test answers as a
 * user would (`turn.approve` / `turn.deny`), and checks what runs, what is stored, which events
 * come, and what the model reads in its next request.
 */
import { firstValueFrom } from 'rxjs';
import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import {
  defineTool,
  InMemorySessionStorage,
  type AgentEvent,
  type ApprovalQuery,
  type Conversation,
  type Message,
  type SessionEvent,
} from '../../src/index.js';
import { reply, ScriptedModelProvider } from '../../src/testing/index.js';
import { createTestAgent, guardedTool, recordingTool } from '../support/agent.js';
import { expectAgentError } from '../support/errors.js';
import { approvalRequested, errorPayloads, eventsOf, types } from '../support/events.js';
import { deferred, hasSettled, promiseJobsRun } from '../support/waits.js';
import { ManualClock } from '../runtime/manual-clock.js';

/** The payloads of the approval events and the tool events, in order. */
const approvalTrail = (events: readonly AgentEvent[]) =>
  events
    .map((e) => e.payload)
    .filter((p) => p.type.startsWith('approval_') || p.type.startsWith('tool_call_'))
    .map((p) => {
      if (p.type === 'approval_requested') return `requested:${p.callId}`;
      if (p.type === 'approval_resolved')
        return `resolved:${p.callId}:${p.approved ? 'yes' : 'no'}:${p.by}${p.reason ? `:${p.reason}` : ''}`;
      if (p.type === 'tool_call_start') return `start:${p.callId}`;
      if (p.type === 'tool_call_end') return `end:${p.callId}:${p.success ? 'ok' : 'error'}`;
      return p.type;
    });

/** The tool results of the model's request number `index`. */
const resultsIn = (provider: ScriptedModelProvider, index: number) =>
  provider.requests[index]!.messages.filter((m) => m.type === 'tool_result');

/** Stored `metadata` records of approvals, as `key:callId`. */
const approvalRecords = (events: readonly SessionEvent[] | null) =>
  (events ?? []).flatMap((e) =>
    e.payload.type === 'metadata' && e.payload.key.startsWith('approval_')
      ? [
          `${e.payload.key}:${(e.payload.value as { callId?: string; toolName?: string }).callId ?? (e.payload.value as { toolName: string }).toolName}`,
        ]
      : [],
  );

describe('approval through the public API', () => {
  it('approve: the call waits, is announced with its arguments, then runs once approved', async () => {
    const notes = guardedTool('notes');
    const { agent, provider } = await createTestAgent({
      tools: [notes.tool],
      script: [
        reply.toolCalls([{ name: 'notes', arguments: { text: 'milk' }, callId: 'c1' }]),
        reply.text('saved'),
      ],
    });
    const session = await agent.newSession();
    const turn = await session.sendMessage('note milk');
    await approvalRequested(turn, 'c1');
    expect(turn.pendingApprovals).toEqual([
      { callId: 'c1', toolName: 'notes', arguments: { text: 'milk' }, requestedAt: expect.any(String) },
    ]);
    expect(Number.isNaN(Date.parse(turn.pendingApprovals[0]!.requestedAt))).toBe(false);
    expect(notes.log).toEqual([]);
    await promiseJobsRun();
    expect(provider.requests).toHaveLength(1);

    await turn.approve('c1');
    expect(turn.pendingApprovals).toEqual([]);
    const events = await eventsOf(turn);
    expect((await turn.result).status).toBe('completed');
    expect(notes.log).toEqual(['start:milk', 'end:milk']);
    expect(approvalTrail(events)).toEqual(['requested:c1', 'resolved:c1:yes:user', 'start:c1', 'end:c1:ok']);
    const requestedEvent = events.find((e) => e.payload.type === 'approval_requested')!;
    expect(requestedEvent.payload).toEqual({
      type: 'approval_requested',
      callId: 'c1',
      toolName: 'notes',
      arguments: { text: 'milk' },
    });
    expect(resultsIn(provider, 1)).toEqual([
      { type: 'tool_result', callId: 'c1', content: 'milk', isError: false },
    ]);
    await agent.shutdown();
  });

  it('deny: the tool never runs, it still gets its start and end, and the model reads who denied it and why', async () => {
    const notes = guardedTool('notes');
    const { agent, provider } = await createTestAgent({
      tools: [notes.tool],
      script: [
        reply.toolCalls([{ name: 'notes', arguments: { text: 'milk' }, callId: 'c1' }]),
        reply.text('ok'),
      ],
    });
    const session = await agent.newSession();
    const turn = await session.sendMessage('note milk');
    await approvalRequested(turn, 'c1');
    await turn.deny('c1', { reason: 'not today' });
    const events = await eventsOf(turn);
    expect(notes.log).toEqual([]);
    expect(approvalTrail(events)).toEqual([
      'requested:c1',
      'resolved:c1:no:user:not today',
      'start:c1',
      'end:c1:error',
    ]);
    // Exactly what the next request carries after the denial.
    expect(provider.requests[1]!.messages.slice(-2)).toEqual([
      { type: 'tool_call', callId: 'c1', toolName: 'notes', arguments: { text: 'milk' } },
      {
        type: 'tool_result',
        callId: 'c1',
        content: 'Tool call denied by the user: not today',
        isError: true,
      },
    ]);
    await agent.shutdown();
  });

  it('deny without a reason', async () => {
    const notes = guardedTool('notes');
    const { agent, provider } = await createTestAgent({
      tools: [notes.tool],
      script: [
        reply.toolCalls([{ name: 'notes', arguments: { text: 'milk' }, callId: 'c1' }]),
        reply.text('ok'),
      ],
    });
    const turn = await (await agent.newSession()).sendMessage('note milk');
    await approvalRequested(turn, 'c1');
    await turn.deny('c1');
    await turn.result;
    expect(resultsIn(provider, 1)).toEqual([
      { type: 'tool_result', callId: 'c1', content: 'Tool call denied by the user.', isError: true },
    ]);
    await agent.shutdown();
  });

  it('always: a sticky rule answers the later calls of the tool, in this session and after a resume', async () => {
    const notes = guardedTool('notes');
    const sessionStorage = new InMemorySessionStorage();
    const script = [
      reply.toolCalls([{ name: 'notes', arguments: { text: 'a' }, callId: 'c1' }]),
      reply.text('one'),
      reply.toolCalls([{ name: 'notes', arguments: { text: 'b' }, callId: 'c2' }]),
      reply.text('two'),
    ];
    const { agent } = await createTestAgent({ tools: [notes.tool], script, sessionStorage });
    const session = await agent.newSession();
    const first = await session.sendMessage('a');
    await approvalRequested(first, 'c1');
    await first.approve('c1', { always: true });
    await first.result;

    const second = await session.sendMessage('b');
    const events = await eventsOf(second);
    expect(approvalTrail(events)).toEqual(['resolved:c2:yes:user', 'start:c2', 'end:c2:ok']);
    expect(notes.log).toEqual(['start:a', 'end:a', 'start:b', 'end:b']);
    const id = session.id;
    await session.close();
    await agent.shutdown();

    // A new agent on the same storage: the rule is restored from the stored approval_rule.
    const again = await createTestAgent({
      tools: [notes.tool],
      sessionStorage,
      script: [
        reply.toolCalls([{ name: 'notes', arguments: { text: 'c' }, callId: 'c3' }]),
        reply.text('three'),
      ],
    });
    const resumed = await again.agent.resumeSession(id);
    const third = await resumed.sendMessage('c');
    expect(approvalTrail(await eventsOf(third))).toEqual(['resolved:c3:yes:user', 'start:c3', 'end:c3:ok']);
    expect(approvalRecords(await sessionStorage.loadSession(id))).toEqual([
      'approval_requested:c1',
      'approval_decision:c1',
      'approval_rule:notes',
      'approval_decision:c2',
      'approval_decision:c3',
    ]);
    await again.agent.shutdown();
  });

  it('always with deny: later calls of the tool are denied with the same reason, without asking', async () => {
    const notes = guardedTool('notes');
    const { agent, provider } = await createTestAgent({
      tools: [notes.tool],
      script: [
        reply.toolCalls([{ name: 'notes', arguments: { text: 'a' }, callId: 'c1' }]),
        reply.toolCalls([{ name: 'notes', arguments: { text: 'b' }, callId: 'c2' }]),
        reply.text('gave up'),
      ],
    });
    const turn = await (await agent.newSession()).sendMessage('a');
    await approvalRequested(turn, 'c1');
    await turn.deny('c1', { reason: 'never', always: true });
    const events = await eventsOf(turn);
    expect(approvalTrail(events)).toEqual([
      'requested:c1',
      'resolved:c1:no:user:never',
      'start:c1',
      'end:c1:error',
      'resolved:c2:no:user:never',
      'start:c2',
      'end:c2:error',
    ]);
    expect(resultsIn(provider, 2).at(-1)).toEqual({
      type: 'tool_result',
      callId: 'c2',
      content: 'Tool call denied by the user: never',
      isError: true,
    });
    expect(notes.log).toEqual([]);
    await agent.shutdown();
  });

  it('always answers the other pending calls of the same tool in the batch too', async () => {
    const notes = guardedTool('notes');
    const { agent } = await createTestAgent({
      tools: [notes.tool],
      script: [
        reply.toolCalls([
          { name: 'notes', arguments: { text: 'a' }, callId: 'c1' },
          { name: 'notes', arguments: { text: 'b' }, callId: 'c2' },
        ]),
        reply.text('done'),
      ],
    });
    const turn = await (await agent.newSession()).sendMessage('a and b');
    await approvalRequested(turn, 'c2');
    expect(turn.pendingApprovals.map((p) => p.callId)).toEqual(['c1', 'c2']);
    await turn.approve('c1', { always: true });
    expect(turn.pendingApprovals).toEqual([]);
    await expectAgentError(turn.approve('c2'), 'APPROVAL_NOT_PENDING', "'c2'");
    await turn.result;
    expect(notes.log).toEqual(['start:a', 'end:a', 'start:b', 'end:b']);
    await agent.shutdown();
  });

  it('policy: allow runs without asking, deny denies, ask asks even a tool that needs no approval', async () => {
    const guarded = guardedTool('guarded');
    const free = recordingTool('free', { mutating: true });
    const open = recordingTool('open', { mutating: true });
    const queries: ApprovalQuery<unknown>[] = [];
    const { agent, provider } = await createTestAgent({
      tools: [guarded.tool, free.tool, open.tool],
      config: {
        approval: {
          policy: async (query) => {
            queries.push(query);
            return query.toolName === 'guarded' ? 'allow' : query.toolName === 'free' ? 'deny' : 'ask';
          },
        },
      },
      script: [
        reply.toolCalls([
          { name: 'guarded', arguments: { text: 'g' }, callId: 'c1' },
          { name: 'free', arguments: { text: 'f' }, callId: 'c2' },
          { name: 'open', arguments: { text: 'o' }, callId: 'c3' },
        ]),
        reply.text('done'),
      ],
    });
    const session = await agent.newSession();
    const turn = await session.sendMessage('go');
    await approvalRequested(turn, 'c3');
    expect(turn.pendingApprovals.map((p) => p.callId)).toEqual(['c3']);
    expect(queries).toEqual([
      { callId: 'c1', toolName: 'guarded', arguments: { text: 'g' }, sessionId: session.id, turnId: turn.id },
      { callId: 'c2', toolName: 'free', arguments: { text: 'f' }, sessionId: session.id, turnId: turn.id },
      { callId: 'c3', toolName: 'open', arguments: { text: 'o' }, sessionId: session.id, turnId: turn.id },
    ]);
    await turn.approve('c3');
    const events = await eventsOf(turn);
    expect(approvalTrail(events)).toEqual([
      'resolved:c1:yes:policy',
      'resolved:c2:no:policy',
      'requested:c3',
      'resolved:c3:yes:user',
      'start:c1',
      'end:c1:ok',
      'start:c2',
      'end:c2:error',
      'start:c3',
      'end:c3:ok',
    ]);
    expect(guarded.log).toEqual(['start:g', 'end:g']);
    expect(free.log).toEqual([]);
    expect(resultsIn(provider, 1)[1]).toEqual({
      type: 'tool_result',
      callId: 'c2',
      content: 'Tool call denied by policy.',
      isError: true,
    });
    await agent.shutdown();
  });

  it('policy undefined leaves the call to the tool; a throwing or hanging policy asks the user and is reported', async () => {
    const clock = new ManualClock();
    const notes = guardedTool('notes', { needsApproval: false });
    let calls = 0;
    const hanging = deferred();
    const { agent } = await createTestAgent({
      tools: [notes.tool],
      config: {
        clock,
        hookTimeoutMs: 500,
        approval: {
          policy: (query) => {
            calls++;
            if (query.callId === 'c1') return undefined;
            if (query.callId === 'c2') throw new Error('policy broke');
            hanging.resolve();
            return new Promise(() => {}); // never answers
          },
        },
      },
      script: [
        reply.toolCalls([
          { name: 'notes', arguments: { text: 'a' }, callId: 'c1' },
          { name: 'notes', arguments: { text: 'b' }, callId: 'c2' },
          { name: 'notes', arguments: { text: 'c' }, callId: 'c3' },
        ]),
        reply.text('done'),
      ],
    });
    const turn = await (await agent.newSession()).sendMessage('go');
    await hanging.promise;
    expect(clock.pending).toContain(500);
    clock.advance(500);
    await approvalRequested(turn, 'c3');
    expect(turn.pendingApprovals.map((p) => p.callId)).toEqual(['c2', 'c3']);
    await turn.approve('c2');
    await turn.approve('c3');
    const events = await eventsOf(turn);
    expect(calls).toBe(3);
    const errors = errorPayloads(events);
    expect(errors.map((e) => [e.error.code, e.fatal])).toEqual([
      ['HOOK_FAILED', false],
      ['HOOK_FAILED', false],
    ]);
    expect(errors[0]!.error.message).toContain("the approval policy failed for call 'c2' (policy broke)");
    expect(errors[1]!.error.message).toContain("call 'c3' (no answer within 500ms)");
    expect(notes.log).toEqual(['start:a', 'end:a', 'start:b', 'end:b', 'start:c', 'end:c']);
    await agent.shutdown();
  });

  it('needsApproval as a function sees the validated arguments and asks only when it says so', async () => {
    const seen: unknown[] = [];
    const files = recordingTool('files', { mutating: true });
    const tool = defineTool({
      name: 'remove',
      description: 'removes a path',
      parameters: z.object({ path: z.string() }),
      mutating: true,
      needsApproval: ({ arguments: { path } }) => {
        seen.push(path);
        return !path.startsWith('/tmp/');
      },
      execute: async ({ arguments: { path } }) => `removed ${path}`,
    });
    const throwing = { ...files.tool, needsApproval: () => Promise.reject(new Error('check broke')) };
    const { agent } = await createTestAgent({
      tools: [tool, throwing],
      script: [
        reply.toolCalls([
          { name: 'remove', arguments: { path: '/tmp/x' }, callId: 'c1' },
          { name: 'remove', arguments: { path: '/home/y' }, callId: 'c2' },
          { name: 'files', arguments: { text: 'z' }, callId: 'c3' },
        ]),
        reply.text('done'),
      ],
    });
    const turn = await (await agent.newSession()).sendMessage('clean up');
    await approvalRequested(turn, 'c3');
    expect(seen).toEqual(['/tmp/x', '/home/y']);
    expect(turn.pendingApprovals.map((p) => p.callId)).toEqual(['c2', 'c3']);
    await turn.approve('c2');
    await turn.approve('c3');
    const events = await eventsOf(turn);
    const errors = errorPayloads(events).map((e) => e.error);
    expect(errors.map((e) => [e.code, e.source])).toEqual([['HOOK_FAILED', 'tool']]);
    expect(errors[0]!.message).toContain("needsApproval of tool 'files' failed for call 'c3' (check broke)");
    await agent.shutdown();
  });

  it('invalid arguments are never asked about: the call gets its error result, the policy is not called', async () => {
    const notes = guardedTool('notes');
    let policyCalls = 0;
    const { agent, provider } = await createTestAgent({
      tools: [notes.tool],
      config: { approval: { policy: () => void policyCalls++ } },
      script: [
        reply.toolCalls([
          { name: 'notes', arguments: { text: 42 }, callId: 'c1' },
          { name: 'notes', arguments: '{not json', callId: 'c2' },
          { name: 'missing', arguments: {}, callId: 'c3' },
        ]),
        reply.text('sorry'),
      ],
    });
    const turn = await (await agent.newSession()).sendMessage('go');
    const events = await eventsOf(turn);
    expect(types(events).filter((t) => t.startsWith('approval_'))).toEqual([]);
    expect(policyCalls).toBe(0);
    const results = resultsIn(provider, 1) as Extract<Message, { type: 'tool_result' }>[];
    expect(results.map((r) => r.isError)).toEqual([true, true, true]);
    expect(results[0]!.content).toContain("Invalid arguments for tool 'notes'");
    expect(results[1]!.content).toContain('not valid JSON');
    expect(results[2]!.content).toContain("Unknown tool 'missing'");
    await agent.shutdown();
  });

  it('timeout: a call nobody decides in approval.timeoutMs is denied by timeout', async () => {
    const clock = new ManualClock();
    const notes = guardedTool('notes');
    const { agent, provider } = await createTestAgent({
      tools: [notes.tool],
      config: { clock, approval: { timeoutMs: 60_000 } },
      script: [
        reply.toolCalls([{ name: 'notes', arguments: { text: 'a' }, callId: 'c1' }]),
        reply.text('ok'),
      ],
    });
    const turn = await (await agent.newSession()).sendMessage('go');
    await approvalRequested(turn, 'c1');
    await clock.timerSet();
    expect(clock.pending).toEqual([60_000]);
    clock.advance(59_999);
    await promiseJobsRun();
    expect(turn.pendingApprovals).toHaveLength(1);
    clock.advance(1);
    const events = await eventsOf(turn);
    expect(approvalTrail(events)).toEqual([
      'requested:c1',
      'resolved:c1:no:timeout',
      'start:c1',
      'end:c1:error',
    ]);
    expect(resultsIn(provider, 1)).toEqual([
      {
        type: 'tool_result',
        callId: 'c1',
        content: 'Tool call denied: approval timed out before anyone decided.',
        isError: true,
      },
    ]);
    await expectAgentError(turn.approve('c1'), 'APPROVAL_NOT_PENDING');
    expect(notes.log).toEqual([]);
    await agent.shutdown();
  });

  it('without a timeout, an approval waits with no timer at all', async () => {
    const clock = new ManualClock();
    const notes = guardedTool('notes');
    const { agent } = await createTestAgent({
      tools: [notes.tool],
      config: { clock },
      script: [
        reply.toolCalls([{ name: 'notes', arguments: { text: 'a' }, callId: 'c1' }]),
        reply.text('ok'),
      ],
    });
    const turn = await (await agent.newSession()).sendMessage('go');
    await approvalRequested(turn, 'c1');
    await promiseJobsRun();
    // The stream's idle timer is cleared once the response ended: nothing else is timed.
    expect(clock.pending).toEqual([]);
    await turn.approve('c1');
    expect((await turn.result).status).toBe('completed');
    await agent.shutdown();
  });

  it('cancel while awaiting: pending calls are resolved by cancel and get the skipped result', async () => {
    const notes = guardedTool('notes');
    const sessionStorage = new InMemorySessionStorage();
    const { agent } = await createTestAgent({
      tools: [notes.tool],
      sessionStorage,
      script: [
        reply.toolCalls([
          { name: 'notes', arguments: { text: 'a' }, callId: 'c1' },
          { name: 'notes', arguments: { text: 'b' }, callId: 'c2' },
        ]),
      ],
    });
    const session = await agent.newSession();
    const turn = await session.sendMessage('go');
    await approvalRequested(turn, 'c2');
    await turn.approve('c1');
    turn.cancel();
    const events = await eventsOf(turn);
    expect((await turn.result).status).toBe('cancelled');
    expect(approvalTrail(events)).toEqual([
      'requested:c1',
      'requested:c2',
      'resolved:c1:yes:user',
      'resolved:c2:no:cancel',
    ]);
    expect(types(events).at(-1)).toBe('turn_cancelled');
    expect(turn.pendingApprovals).toEqual([]);
    await expectAgentError(turn.deny('c2'), 'APPROVAL_NOT_PENDING');
    expect(notes.log).toEqual([]);
    expect(session.messages.filter((m) => m.type === 'tool_result')).toEqual([
      {
        type: 'tool_result',
        callId: 'c1',
        content: 'Tool call skipped: the turn was cancelled before it started.',
        isError: true,
      },
      {
        type: 'tool_result',
        callId: 'c2',
        content: 'Tool call skipped: the turn was cancelled before it started.',
        isError: true,
      },
    ]);
    expect(approvalRecords(await sessionStorage.loadSession(session.id))).toEqual([
      'approval_requested:c1',
      'approval_requested:c2',
      'approval_decision:c1',
      'approval_decision:c2',
    ]);
    await agent.shutdown();
  });

  it('sendMessage while a turn awaits approval is TURN_BUSY', async () => {
    const notes = guardedTool('notes');
    const { agent } = await createTestAgent({
      tools: [notes.tool],
      script: [
        reply.toolCalls([{ name: 'notes', arguments: { text: 'a' }, callId: 'c1' }]),
        reply.text('ok'),
      ],
    });
    const session = await agent.newSession();
    const turn = await session.sendMessage('go');
    await approvalRequested(turn, 'c1');
    await expectAgentError(session.sendMessage('another'), 'TURN_BUSY');
    await turn.approve('c1');
    expect((await turn.result).status).toBe('completed');
    await agent.shutdown();
  });

  it('APPROVAL_NOT_PENDING for an unknown call, a decided call, and a call that needs no approval', async () => {
    const notes = guardedTool('notes');
    const free = recordingTool('free');
    const { agent } = await createTestAgent({
      tools: [notes.tool, free.tool],
      script: [
        reply.toolCalls([
          { name: 'notes', arguments: { text: 'a' }, callId: 'c1' },
          { name: 'free', arguments: { text: 'b' }, callId: 'c2' },
        ]),
        reply.text('ok'),
      ],
    });
    const turn = await (await agent.newSession()).sendMessage('go');
    await expectAgentError(turn.approve('c1'), 'APPROVAL_NOT_PENDING', "'c1'");
    await approvalRequested(turn, 'c1');
    await expectAgentError(turn.approve('nope'), 'APPROVAL_NOT_PENDING', "'nope'");
    // Bad options are refused before anything is decided.
    await expectAgentError(turn.approve('c1', { always: 'yes' } as never), 'INVALID_INPUT');
    await expectAgentError(turn.deny('c1', { reason: 42 } as never), 'INVALID_INPUT');
    expect(turn.pendingApprovals.map((p) => p.callId)).toEqual(['c1']);
    await expectAgentError(turn.deny('c2'), 'APPROVAL_NOT_PENDING', "'c2'");
    const approving = turn.approve('c1');
    await expectAgentError(turn.deny('c1'), 'APPROVAL_NOT_PENDING');
    await approving;
    await expectAgentError(turn.approve('c1'), 'APPROVAL_NOT_PENDING');
    await turn.result;
    await agent.shutdown();
  });

  it('the request is stored and drained before approval_requested; a decision is stored before approve resolves', async () => {
    const notes = guardedTool('notes');
    const saved: SessionEvent[] = [];
    let hold: ReturnType<typeof deferred<void>> | null = null;
    class HeldStorage extends InMemorySessionStorage {
      override async saveEvent(sessionId: string, event: SessionEvent): Promise<void> {
        const gate = hold;
        if (gate) await gate.promise;
        await super.saveEvent(sessionId, event);
        saved.push(event);
      }
    }
    const sessionStorage = new HeldStorage();
    const { agent } = await createTestAgent({
      tools: [notes.tool],
      sessionStorage,
      script: [
        reply.toolCalls([{ name: 'notes', arguments: { text: 'a' }, callId: 'c1' }]),
        reply.text('ok'),
      ],
    });
    const session = await agent.newSession();
    const keys = () => approvalRecords(saved);
    const seenAtRequest: string[][] = [];
    hold = deferred<void>();
    const turn = await session.sendMessage('go');
    turn.events.subscribe((e) => {
      if (e.payload.type === 'approval_requested') seenAtRequest.push(keys());
    });
    // Storage is held: the request cannot be announced yet.
    const announced = approvalRequested(turn, 'c1');
    await promiseJobsRun();
    expect(await hasSettled(announced)).toBe(false);
    const gate = hold;
    hold = null;
    gate.resolve();
    await announced;
    expect(seenAtRequest).toEqual([['approval_requested:c1']]);

    hold = deferred<void>();
    const approving = turn.approve('c1');
    await promiseJobsRun();
    expect(await hasSettled(approving)).toBe(false);
    expect(keys()).toEqual(['approval_requested:c1']);
    const second = hold;
    hold = null;
    second.resolve();
    await approving;
    expect(keys()).toEqual(['approval_requested:c1', 'approval_decision:c1']);
    const decision = saved.find(
      (e) => e.payload.type === 'metadata' && e.payload.key === 'approval_decision',
    );
    expect(decision?.payload).toEqual({
      type: 'metadata',
      key: 'approval_decision',
      value: { turnId: turn.id, callId: 'c1', approved: true, by: 'user', decidedAt: expect.any(String) },
    });
    await turn.result;
    await agent.shutdown();
  });

  it('mixed batch: every decision is collected first, then the batch runs by the usual rules', async () => {
    const write = guardedTool('write');
    const remove = guardedTool('remove');
    const read = recordingTool('read');
    const { agent, provider } = await createTestAgent({
      tools: [write.tool, remove.tool, read.tool],
      script: [
        reply.toolCalls([
          { name: 'write', arguments: { text: 'w' }, callId: 'c1' },
          { name: 'remove', arguments: { text: 'r' }, callId: 'c2' },
          { name: 'read', arguments: { text: 'x' }, callId: 'c3' },
        ]),
        reply.text('done'),
      ],
    });
    const turn = await (await agent.newSession()).sendMessage('go');
    await approvalRequested(turn, 'c2');
    expect(turn.pendingApprovals.map((p) => p.callId)).toEqual(['c1', 'c2']);
    await turn.approve('c1');
    await promiseJobsRun();
    // Nothing of the batch runs before the last decision, not even the read-only call.
    expect([...write.log, ...read.log]).toEqual([]);
    await turn.deny('c2', { reason: 'keep it' });
    const events = await eventsOf(turn);
    expect(approvalTrail(events)).toEqual([
      'requested:c1',
      'requested:c2',
      'resolved:c1:yes:user',
      'resolved:c2:no:user:keep it',
      // The batch has mutating tools: serial, in call order.
      'start:c1',
      'end:c1:ok',
      'start:c2',
      'end:c2:error',
      'start:c3',
      'end:c3:ok',
    ]);
    expect(resultsIn(provider, 1)).toEqual([
      { type: 'tool_result', callId: 'c1', content: 'w', isError: false },
      { type: 'tool_result', callId: 'c2', content: 'Tool call denied by the user: keep it', isError: true },
      { type: 'tool_result', callId: 'c3', content: 'x', isError: false },
    ]);
    expect(remove.log).toEqual([]);
    await agent.shutdown();
  });
});

describe('approval in session.conversation', () => {
  it('a waiting call shows as awaiting_approval (and the turn too); a denied one as denied, also after a resume', async () => {
    const notes = guardedTool('notes');
    const free = recordingTool('free', { mutating: true });
    const sessionStorage = new InMemorySessionStorage();
    const { agent } = await createTestAgent({
      tools: [notes.tool, free.tool],
      sessionStorage,
      script: [
        reply.toolCalls([
          { name: 'notes', arguments: { text: 'a' }, callId: 'c1' },
          { name: 'notes', arguments: { text: 'b' }, callId: 'c2' },
          { name: 'free', arguments: { text: 'c' }, callId: 'c3' },
        ]),
        reply.text('ok'),
      ],
    });
    const session = await agent.newSession();
    const states: Conversation[] = [];
    session.conversation.subscribe((state) => states.push(state));
    const now = () => states.at(-1)!;
    const statuses = () =>
      Object.fromEntries(now().items.flatMap((i) => (i.kind === 'tool' ? [[i.callId, i.status]] : [])));
    const turn = await session.sendMessage('go');
    await approvalRequested(turn, 'c2');
    expect(now().turn).toEqual({ id: turn.id, status: 'awaiting_approval' });
    expect(statuses()).toEqual({ c1: 'awaiting_approval', c2: 'awaiting_approval', c3: 'running' });
    await turn.deny('c1', { reason: 'no' });
    expect(now().turn?.status).toBe('awaiting_approval');
    expect(statuses()).toEqual({ c1: 'denied', c2: 'awaiting_approval', c3: 'running' });
    await turn.approve('c2');
    await turn.result;
    expect(statuses()).toEqual({ c1: 'denied', c2: 'done', c3: 'done' });
    expect(states.some((s) => s.turn?.status === 'running' && s.items.length > 0)).toBe(true);
    expect(now().turn).toBeNull();
    const live = now().items;
    await session.close();

    const resumed = await agent.resumeSession(session.id);
    const resumedItems = (await firstValueFrom(resumed.conversation)).items;
    expect(resumedItems.map((i) => (i.kind === 'tool' ? [i.callId, i.status] : i.kind))).toEqual(
      live.map((i) => (i.kind === 'tool' ? [i.callId, i.status] : i.kind)),
    );
    await agent.shutdown();
  });
});

describe('approval of tools from a tool source', () => {
  it('a source tool that needs approval waits like a registered one', async () => {
    const remote = guardedTool('remote_write');
    const provider = new ScriptedModelProvider({
      script: [
        reply.toolCalls([{ name: 'remote_write', arguments: { text: 'x' }, callId: 'c1' }]),
        reply.text('done'),
      ],
    });
    const { agent } = await createTestAgent({
      provider,
      toolSources: [{ id: 'remote', tools: async () => [remote.tool] }],
    });
    const turn = await (await agent.newSession()).sendMessage('go');
    await approvalRequested(turn, 'c1');
    expect(remote.log).toEqual([]);
    await turn.approve('c1');
    await turn.result;
    expect(remote.log).toEqual(['start:x', 'end:x']);
    await agent.shutdown();
  });
});
