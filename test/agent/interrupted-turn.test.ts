/**
 * A turn a reload cut off: the page dies mid-turn (its Agent is simply abandoned), a new Agent
 * resumes the stored events, finds the interrupted turn, and continues or discards it. Whatever
 * the point of the reload, the history is valid for the next request, no user message is
 * repeated, and a mutating call that had started is never run again silently.
 */
import { describe, expect, it } from 'vitest';
import {
  AgentError,
  InMemorySessionStorage,
  type ChatEvent,
  type ChatRequest,
  type ModelProvider,
  type ToolHandler,
  type ToolSource,
} from '../../src/index.js';
import { reply, SCRIPTED_MODEL } from '../../src/testing/index.js';
import { ManualClock } from '../runtime/manual-clock.js';
import { createTestAgent, recordingTool } from '../support/agent.js';
import { eventsOf, firstEvent, types } from '../support/events.js';
import { expectAgentError } from '../support/errors.js';
import { eventLabel, storedAfterClose, toolPairingProblems } from '../support/history.js';
import { deferred } from '../support/waits.js';

const text = (request: ChatRequest) => JSON.stringify(request.messages);

describe('a reload during a tool call', () => {
  /** Runs a turn until `tool` is executing, then "reloads": a fresh Agent on the stored events. */
  async function reloadDuringTool(mutating: boolean, from: 'registered' | 'source' = 'registered') {
    /** The tool as the page gets it: registered, or from a tool source. */
    const offered = (tool: ToolHandler) =>
      from === 'registered'
        ? { tools: [tool] }
        : { toolSources: [{ id: 'remote', tools: async () => [tool] } satisfies ToolSource] };
    const running = deferred();
    const hold = deferred<string>();
    const page1 = recordingTool('act', {
      mutating,
      run: async () => {
        running.resolve();
        return hold.promise;
      },
    });
    const first = await createTestAgent({
      ...offered(page1.tool),
      script: [reply.toolCalls([{ name: 'act', arguments: { text: 'x' }, callId: 'c1' }])],
    });
    const session = await first.agent.newSession();
    await session.sendMessage('do it');
    await running.promise;
    const storage = await storedAfterClose(first.sessionStorage!, session.id);

    const page2 = recordingTool('act', { mutating });
    const second = await createTestAgent({
      ...offered(page2.tool),
      sessionStorage: storage,
      script: [reply.text('done')],
    });
    const resumed = await second.agent.resumeSession(session.id);
    return { resumed, storage, page2, provider: second.provider, agent: second.agent };
  }

  it('resumes a history valid for a request: the unanswered call shows a derived interrupted result', async () => {
    const { resumed, storage } = await reloadDuringTool(false);
    expect(toolPairingProblems(resumed.messages)).toEqual([]);
    expect(resumed.messages.at(-1)).toEqual({
      type: 'tool_result',
      callId: 'c1',
      content: 'Tool call interrupted: the page was closed before this call finished.',
      isError: true,
    });
    expect(resumed.interruptedTurn).toEqual({
      turnId: expect.any(String),
      reason: 'tools_unfinished',
      pendingApprovals: [],
      unfinishedToolCalls: [{ callId: 'c1', toolName: 'act', mutating: false, maybeExecuted: false }],
      partialText: null,
    });
    // Derived, not stored: the storage still ends with the call.
    expect((await storage.loadSession(resumed.id))!.map(eventLabel).at(-1)).toBe('tool_call');
  });

  it('continueTurn() runs a read-only call again, under the same turn id, and the model reads its real result', async () => {
    const { resumed, page2, provider, storage } = await reloadDuringTool(false);
    const turnId = resumed.interruptedTurn!.turnId;
    const turn = await resumed.continueTurn();
    expect(turn.id).toBe(turnId);
    const events = await eventsOf(turn);
    expect(types(events)).toEqual([
      'turn_resumed',
      'tool_call_start',
      'tool_call_end',
      'text_delta',
      'turn_complete',
    ]);
    expect(events[0]!.payload).toEqual({ type: 'turn_resumed', reason: 'tools_unfinished' });
    expect(page2.log).toEqual(['start:x', 'end:x']);
    const request = provider.requests[0]!;
    expect(toolPairingProblems(request.messages)).toEqual([]);
    expect(request.messages.filter((m) => m.type === 'tool_result')).toEqual([
      { type: 'tool_result', callId: 'c1', content: 'x', isError: false },
    ]);
    // One user message, stored once; the turn is closed.
    expect(resumed.interruptedTurn).toBeNull();
    const stored = (await storage.loadSession(resumed.id))!;
    expect(stored.filter((e) => e.payload.type === 'user_message')).toHaveLength(1);
    expect(stored.map(eventLabel).slice(-3)).toEqual([
      'tool_result',
      'assistant_message',
      'metadata:turn_ended',
    ]);
  });

  it('never runs a mutating call that had started again: its outcome is reported unknown', async () => {
    const { resumed, page2, provider } = await reloadDuringTool(true);
    expect(resumed.interruptedTurn!.unfinishedToolCalls).toEqual([
      { callId: 'c1', toolName: 'act', mutating: true, maybeExecuted: true },
    ]);
    const turn = await resumed.continueTurn();
    expect((await turn.result).status).toBe('completed');
    expect(page2.log).toEqual([]);
    expect(provider.requests[0]!.messages.filter((m) => m.type === 'tool_result')).toEqual([
      {
        type: 'tool_result',
        callId: 'c1',
        content:
          'Tool outcome unknown: the page was closed while it ran; it may or may not have taken effect.',
        isError: true,
      },
    ]);
  });

  it('never runs a started mutating call of a tool source again either (its tool is not registered)', async () => {
    const { resumed, page2 } = await reloadDuringTool(true, 'source');
    expect(resumed.interruptedTurn!.unfinishedToolCalls).toEqual([
      { callId: 'c1', toolName: 'act', mutating: true, maybeExecuted: true },
    ]);
    expect((await (await resumed.continueTurn()).result).status).toBe('completed');
    expect(page2.log).toEqual([]);
  });

  it('runs it again with rerunMaybeExecuted', async () => {
    const { resumed, page2 } = await reloadDuringTool(true);
    const turn = await resumed.continueTurn({ rerunMaybeExecuted: true });
    expect((await turn.result).status).toBe('completed');
    expect(page2.log).toEqual(['start:x', 'end:x']);
  });

  it('discardInterruptedTurn() stores the interrupted result as it is and emits the turn’s turn_cancelled', async () => {
    const { resumed, storage, page2, agent } = await reloadDuringTool(false);
    const turnId = resumed.interruptedTurn!.turnId;
    const seen: string[] = [];
    resumed.events.subscribe((e) => seen.push(`${e.turnId}:${e.payload.type}`));
    await resumed.discardInterruptedTurn();
    expect(seen).toEqual([`${turnId}:turn_cancelled`]);
    expect(resumed.interruptedTurn).toBeNull();
    expect(page2.log).toEqual([]);
    const stored = (await storage.loadSession(resumed.id))!;
    expect(stored.map(eventLabel).slice(-2)).toEqual(['tool_result', 'metadata:turn_ended']);
    await agent.shutdown();

    const again = await (await createTestAgent({ sessionStorage: storage })).agent.resumeSession(resumed.id);
    expect(again.interruptedTurn).toBeNull();
    expect(toolPairingProblems(again.messages)).toEqual([]);
  });

  it('sendMessage() discards it first, so the next request is valid (the reload no longer breaks the session)', async () => {
    const { resumed, provider } = await reloadDuringTool(false);
    const interrupted = resumed.interruptedTurn!.turnId;
    const seen: string[] = [];
    resumed.events.subscribe((e) =>
      seen.push(`${e.turnId === interrupted ? 'old' : 'new'}:${e.payload.type}`),
    );
    await (
      await resumed.sendMessage('next')
    ).result;
    expect(seen.slice(0, 2)).toEqual(['old:turn_cancelled', 'new:text_delta']);
    const request = provider.requests[0]!;
    expect(toolPairingProblems(request.messages)).toEqual([]);
    expect(request.messages.map((m) => m.type)).toEqual([
      'user',
      'assistant',
      'tool_call',
      'tool_result',
      'user',
    ]);
  });
});

describe('a reload while the model streams', () => {
  async function reloadMidStream() {
    const storage = new InMemorySessionStorage();
    const hold = deferred();
    const first = await createTestAgent({
      sessionStorage: storage,
      script: [
        [
          { type: 'text_delta', text: 'The answer is' },
          { type: 'wait', until: hold.promise },
        ],
      ],
    });
    const session = await first.agent.newSession();
    const turn = await session.sendMessage('question?');
    await firstEvent(turn.events, 'text_delta');
    const copy = await storedAfterClose(storage, session.id);
    await copy.saveDraft(session.id, await storage.loadDraft(session.id));
    const second = await createTestAgent({ sessionStorage: copy, script: [reply.text(' 42.')] });
    return { resumed: await second.agent.resumeSession(session.id), copy, provider: second.provider };
  }

  it('shows the partial text after the reload, and continueTurn() keeps it and asks the model again', async () => {
    const { resumed, copy, provider } = await reloadMidStream();
    expect(resumed.interruptedTurn).toMatchObject({ reason: 'awaiting_model', partialText: 'The answer is' });
    const items = await new Promise<unknown[]>((resolve) =>
      resumed.conversation.subscribe((c) => resolve(c.items as unknown[])),
    );
    expect(items).toContainEqual(expect.objectContaining({ kind: 'assistant', text: 'The answer is' }));

    const turn = await resumed.continueTurn();
    expect((await turn.result).status).toBe('completed');
    const request = provider.requests[0]!;
    expect(request.messages).toEqual([
      { type: 'user', content: [{ type: 'text', text: 'question?' }] },
      { type: 'assistant', content: [{ type: 'text', text: 'The answer is' }], status: 'incomplete' },
      { type: 'system', content: '[The previous assistant message was interrupted before it was finished.]' },
    ]);
    expect(await copy.loadDraft(resumed.id)).toBeNull();
    const stored = (await copy.loadSession(resumed.id))!;
    expect(stored.filter((e) => e.payload.type === 'user_message')).toHaveLength(1);
  });

  it('a reload before anything streamed: awaiting_model, no partial text, one new request with the stored user message', async () => {
    const first = await createTestAgent({ script: [[{ type: 'wait', until: new Promise(() => {}) }]] });
    const session = await first.agent.newSession();
    await session.sendMessage('hello');
    const storage = await storedAfterClose(first.sessionStorage!, session.id);
    const second = await createTestAgent({ sessionStorage: storage, script: [reply.text('hi')] });
    const resumed = await second.agent.resumeSession(session.id);
    expect(resumed.interruptedTurn).toMatchObject({ reason: 'awaiting_model', partialText: null });
    await (
      await resumed.continueTurn()
    ).result;
    expect(second.provider.requests).toHaveLength(1);
    expect(text(second.provider.requests[0]!)).toBe(
      JSON.stringify([{ type: 'user', content: [{ type: 'text', text: 'hello' }] }]),
    );
  });
});

describe('the rules', () => {
  it('a session whose turns all ended has no interrupted turn; continueTurn() then rejects INVALID_INPUT', async () => {
    const { agent, sessionStorage } = await createTestAgent({ script: [reply.text('ok')] });
    const session = await agent.newSession();
    await (
      await session.sendMessage('hi')
    ).result;
    await session.close();
    const resumed = await agent.resumeSession(session.id);
    expect(resumed.interruptedTurn).toBeNull();
    await expectAgentError(resumed.continueTurn(), 'INVALID_INPUT', 'no interrupted turn');
    await expectAgentError(resumed.continueTurn({ rerun: true } as never), 'INVALID_INPUT', 'rerun');
    await resumed.discardInterruptedTurn(); // a no-op
    expect((await sessionStorage!.loadSession(session.id))!.map(eventLabel).at(-1)).toBe(
      'metadata:turn_ended',
    );
  });

  it('saves the streaming draft at most once a second, and clears it at the end of the turn', async () => {
    const storage = new InMemorySessionStorage();
    const clock = new ManualClock();
    // Two deltas, 1.1 s on the agent's clock, two more.
    const provider: ModelProvider = {
      id: 'drafting',
      models: [SCRIPTED_MODEL],
      async *chat(): AsyncGenerator<ChatEvent> {
        yield { type: 'text_delta', text: 'a' };
        yield { type: 'text_delta', text: 'b' };
        clock.advance(1_100);
        yield { type: 'text_delta', text: 'c' };
        yield { type: 'text_delta', text: 'd' };
        yield { type: 'done', finishReason: 'stop' };
      },
    };
    const { agent } = await createTestAgent({ sessionStorage: storage, provider, config: { clock } });
    const saved: (string | null)[] = [];
    const save = storage.saveDraft.bind(storage);
    storage.saveDraft = async (id, draft) => {
      saved.push(draft?.text ?? null);
      return save(id, draft);
    };
    const session = await agent.newSession();
    await (
      await session.sendMessage('go')
    ).result;
    expect(saved).toEqual(['a', 'abc', null]);
    expect(await storage.loadDraft(session.id)).toBeNull();
  });

  it('a turn started with no stored user message (the tab closed at once) leaves nothing to continue', async () => {
    const storage = new InMemorySessionStorage();
    await storage.saveEvent('s1', {
      timestamp: '2026-01-01T00:00:00.000Z',
      payload: { type: 'metadata', key: 'session_config', value: { modelId: 'scripted-model' } },
    });
    await storage.saveEvent('s1', {
      timestamp: '2026-01-01T00:00:00.000Z',
      payload: { type: 'metadata', key: 'turn_started', value: { turnId: 't1' } },
    });
    const { agent } = await createTestAgent({ sessionStorage: storage });
    expect((await agent.resumeSession('s1')).interruptedTurn).toBeNull();
  });

  it('sessions stored before turn markers: a dangling call is found and repaired too', async () => {
    const storage = new InMemorySessionStorage();
    const at = '2026-01-01T00:00:00.000Z';
    for (const payload of [
      { type: 'user_message', content: [{ type: 'text', text: 'hi' }] },
      { type: 'assistant_message', content: [], status: 'complete' },
      { type: 'tool_call', callId: 'old', toolName: 'act', arguments: { text: 'x' } },
    ] as const) {
      await storage.saveEvent('legacy', { timestamp: at, payload: structuredClone(payload) as never });
    }
    const { agent } = await createTestAgent({ sessionStorage: storage });
    const resumed = await agent.resumeSession('legacy');
    expect(toolPairingProblems(resumed.messages)).toEqual([]);
    expect(resumed.interruptedTurn?.reason).toBe('tools_unfinished');
  });

  it('continueTurn() while a turn runs rejects TURN_BUSY; after close SESSION_CLOSED', async () => {
    const { resumed } = await (async () => {
      const first = await createTestAgent({ script: [[{ type: 'wait', until: new Promise(() => {}) }]] });
      const session = await first.agent.newSession();
      await session.sendMessage('hello');
      const storage = await storedAfterClose(first.sessionStorage!, session.id);
      const hold = deferred();
      const second = await createTestAgent({
        sessionStorage: storage,
        script: [[{ type: 'wait', until: hold.promise }, ...reply.text('ok')]],
      });
      return { resumed: await second.agent.resumeSession(session.id), hold };
    })();
    const turn = await resumed.continueTurn();
    await expectAgentError(resumed.continueTurn(), 'TURN_BUSY');
    await expectAgentError(resumed.discardInterruptedTurn(), 'TURN_BUSY');
    turn.cancel();
    await turn.result;
    await resumed.close();
    await expectAgentError(resumed.continueTurn(), 'SESSION_CLOSED');
  });
});
