/**
 * A resumed session's conversation shows the same user, assistant and tool items — same ids —
 * as the live session showed at the end of its last turn, minus what is never stored: reasoning,
 * tool durations and the notices of error events. Notices that come from stored data
 * (interruption, compaction, the tool-call limit) appear in both.
 */
import { firstValueFrom, filter } from 'rxjs';
import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { AgentError, defineTool, type Agent, type Conversation, type Session } from '../../src/index.js';
import { reply, SCRIPTED_MODEL } from '../../src/testing/index.js';
import { createTestAgent, recordingTool } from '../support/agent.js';
import { deferred } from '../support/waits.js';
import { asStored, current, isLiveOnlyNotice, label, text } from './support.js';

/** A model whose 2,000-token window compacts above 1,300 tokens. */
const SMALL_WINDOW = { ...SCRIPTED_MODEL, contextWindow: 2_000 };

/** Closes `session`, resumes it, and returns the resumed session's first state. */
async function reopen(agent: Agent, session: Session) {
  await session.close();
  const resumed = await agent.resumeSession(session.id);
  return { resumed, state: current(resumed) };
}

/** The first state of `session` that satisfies `predicate`. */
const stateWhere = (session: Session, predicate: (state: Conversation) => boolean) =>
  firstValueFrom(session.conversation.pipe(filter(predicate)));

describe('live and resumed conversations agree', () => {
  it('after plain turns: the same items, with reasoning live only', async () => {
    const { agent } = await createTestAgent({
      script: [
        reply.text('Hello there!', { chunks: 3, reasoning: 'greet back' }),
        reply.text('You said hi.'),
      ],
    });
    const session = await agent.newSession();
    await (
      await session.sendMessage('hi')
    ).result;
    await (
      await session.sendMessage('what did I say?')
    ).result;
    const live = current(session).items;
    expect(live).toEqual([
      { kind: 'user', id: 'message-0', content: text('hi') },
      {
        kind: 'assistant',
        id: 'message-1',
        text: 'Hello there!',
        reasoning: 'greet back',
        status: 'complete',
      },
      { kind: 'user', id: 'message-2', content: text('what did I say?') },
      { kind: 'assistant', id: 'message-3', text: 'You said hi.', reasoning: '', status: 'complete' },
    ]);

    const { state } = await reopen(agent, session);
    expect(state.items).toEqual(asStored(live));
    expect(state.turn).toBeNull();
    await agent.shutdown();
  });

  it('after tool rounds: tool items with outputs and statuses, no empty answer before the calls', async () => {
    const echo = recordingTool('echo');
    const broken = defineTool({
      name: 'broken',
      description: 'always fails',
      parameters: z.object({}),
      execute: async () => {
        throw new Error('disk full');
      },
    });
    const { agent } = await createTestAgent({
      tools: [echo.tool, broken],
      script: [
        reply.toolCalls([
          { name: 'echo', arguments: { text: 'ping' }, callId: 'c1' },
          { name: 'broken', arguments: {}, callId: 'c2' },
        ]),
        reply.toolCalls([{ name: 'echo', arguments: { text: 'again' }, callId: 'c3' }], {
          text: 'Let me try once more.',
        }),
        reply.text('Done: ping, again.'),
      ],
    });
    const session = await agent.newSession();
    await (
      await session.sendMessage('go')
    ).result;
    const live = current(session).items;
    // The first response carried only tool calls: no assistant item for it (message-1 is unused).
    expect(asStored(live)).toEqual([
      { kind: 'user', id: 'message-0', content: text('go') },
      {
        kind: 'tool',
        callId: 'c1',
        toolName: 'echo',
        arguments: { text: 'ping' },
        status: 'done',
        output: { content: 'ping', isError: false },
      },
      {
        kind: 'tool',
        callId: 'c2',
        toolName: 'broken',
        arguments: {},
        status: 'error',
        output: { content: "Tool 'broken' failed: disk full", isError: true },
      },
      {
        kind: 'assistant',
        id: 'message-6',
        text: 'Let me try once more.',
        reasoning: '',
        status: 'complete',
      },
      {
        kind: 'tool',
        callId: 'c3',
        toolName: 'echo',
        arguments: { text: 'again' },
        status: 'done',
        output: { content: 'again', isError: false },
      },
      { kind: 'assistant', id: 'message-9', text: 'Done: ping, again.', reasoning: '', status: 'complete' },
    ]);
    // Durations are live only.
    for (const item of live) if (item.kind === 'tool') expect(item.durationMs).toBeGreaterThanOrEqual(0);

    const { state } = await reopen(agent, session);
    expect(state.items).toEqual(asStored(live));
    await agent.shutdown();
  });

  it('after a cancel mid-stream: the answer is incomplete, with the interruption notice in both', async () => {
    const held = deferred();
    const { agent } = await createTestAgent({
      script: [
        [
          { type: 'text_delta', text: 'Half an ans' },
          { type: 'wait', until: held.promise },
          { type: 'done', finishReason: 'stop' },
        ],
      ],
    });
    const session = await agent.newSession();
    const turn = await session.sendMessage('hi');
    await stateWhere(session, (s) => s.items.some((i) => i.kind === 'assistant' && i.status === 'streaming'));
    turn.cancel();
    await turn.result;
    const live = current(session).items;
    expect(live.slice(1)).toEqual([
      { kind: 'assistant', id: 'message-1', text: 'Half an ans', reasoning: '', status: 'incomplete' },
      {
        kind: 'notice',
        id: 'message-2',
        level: 'warning',
        text: 'The answer was interrupted before it was finished.',
      },
    ]);

    const { state } = await reopen(agent, session);
    expect(state.items).toEqual(asStored(live));
    held.resolve();
    await agent.shutdown();
  });

  it('after a cancel during tools: the call not started is skipped in both', async () => {
    const started = deferred();
    const finish = deferred();
    const slow = recordingTool('slow', {
      mutating: true,
      run: async (t) => {
        started.resolve();
        await finish.promise;
        return t;
      },
    });
    const { agent } = await createTestAgent({
      tools: [slow.tool],
      script: [
        reply.toolCalls([
          { name: 'slow', arguments: { text: 'a' }, callId: 'a' },
          { name: 'slow', arguments: { text: 'b' }, callId: 'b' },
        ]),
      ],
    });
    const session = await agent.newSession();
    const turn = await session.sendMessage('go');
    await started.promise;
    turn.cancel();
    finish.resolve();
    await turn.result;
    const live = current(session).items;
    expect(live.map((i) => (i.kind === 'tool' ? `${i.callId}:${i.status}` : i.kind))).toEqual([
      'user',
      'a:done',
      'b:skipped',
    ]);

    const { state } = await reopen(agent, session);
    expect(state.items).toEqual(asStored(live));
    await agent.shutdown();
  });

  it('after a failure with output: incomplete answer and interruption notice; the error notice is live only', async () => {
    const lost = new AgentError('PROVIDER_ERROR', 'connection lost', { retryable: true });
    const { agent } = await createTestAgent({
      script: [
        [
          { type: 'text_delta', text: 'The answer is' },
          { type: 'throw', error: lost },
        ],
      ],
    });
    const session = await agent.newSession();
    await (
      await session.sendMessage('What is the answer?')
    ).result;
    const live = current(session).items;
    expect(live.slice(1).map(label)).toEqual([
      'assistant message-1 incomplete',
      'notice message-2 warning: The answer was interrupted before it was finished.',
      expect.stringMatching(/^notice event-\d+ error: connection lost$/),
    ]);
    expect(live.filter(isLiveOnlyNotice)).toEqual([
      { kind: 'notice', id: expect.stringMatching(/^event-\d+$/), level: 'error', text: lost.message },
    ]);

    const { state } = await reopen(agent, session);
    expect(state.items).toEqual(asStored(live));
    expect(state.items.filter(isLiveOnlyNotice)).toEqual([]);
    await agent.shutdown();
  });

  it('after a retried failure: the retry notice is live only', async () => {
    const overloaded = new AgentError('PROVIDER_ERROR', 'overloaded', { retryable: true });
    const { agent } = await createTestAgent({
      config: { retry: { initialDelayMs: 0 } },
      script: [reply.error(overloaded), reply.text('Here.')],
    });
    const session = await agent.newSession();
    await (
      await session.sendMessage('Are you there?')
    ).result;
    const live = current(session).items;
    expect(live.filter(isLiveOnlyNotice).map((n) => n.kind === 'notice' && n.level)).toEqual(['warning']);

    const { state } = await reopen(agent, session);
    expect(state.items).toEqual(asStored(live));
    await agent.shutdown();
  });

  it('after a micro-compaction: the notice in both, and the tool outputs as the turn showed them', async () => {
    const readPage = defineTool({
      name: 'read_page',
      description: 'Reads a page',
      parameters: z.object({ page: z.number() }),
      execute: async ({ arguments: { page } }) => `Page ${page}: ${'lorem ipsum '.repeat(250)}`,
    });
    const { agent } = await createTestAgent({
      models: [SMALL_WINDOW],
      config: { compaction: { keepRecentToolResults: 1 } },
      tools: [readPage],
      script: [
        reply.toolCalls([{ name: 'read_page', arguments: { page: 1 }, callId: 'p1' }]),
        reply.toolCalls([{ name: 'read_page', arguments: { page: 2 }, callId: 'p2' }]),
        reply.text('Both pages say lorem ipsum.'),
      ],
    });
    const session = await agent.newSession();
    await (
      await session.sendMessage('What do pages 1 and 2 say?')
    ).result;
    const live = current(session).items;
    expect(live.map((i) => (i.kind === 'notice' ? i.text : i.kind))).toEqual([
      'user',
      'tool',
      'tool',
      'Older tool outputs were cleared from the context to save space.',
      'assistant',
    ]);
    // The conversation keeps what the context let go: page 1's output is still whole.
    const page1 = live[1]!;
    expect(page1.kind === 'tool' && page1.output?.content.startsWith('Page 1: lorem')).toBe(true);

    const { state } = await reopen(agent, session);
    expect(state.items).toEqual(asStored(live));
    await agent.shutdown();
  });

  it('after a summary compaction: the notice in both, and the summarized messages still shown', async () => {
    const { agent } = await createTestAgent({
      models: [SMALL_WINDOW],
      script: [
        reply.text('That is a long log: every request timed out.'),
        reply.text('The user pasted a server log; every line is a timeout.'), // the summary
        reply.text('Increase the timeout.'),
        reply.text('You are welcome.'),
      ],
    });
    const session = await agent.newSession();
    const log = `Here is my log:\n${'GET /api timeout\n'.repeat(302)}`;
    await (
      await session.sendMessage(log)
    ).result;
    await (
      await session.sendMessage('What should I do?')
    ).result;
    const live = current(session).items;
    expect(live.map(label)).toEqual([
      'user message-0',
      'assistant message-1 complete',
      'user message-2',
      'notice compaction-1 info: Earlier messages were summarized to save context space.',
      'assistant message-3 complete',
    ]);

    const first = await reopen(agent, session);
    expect(first.state.items).toEqual(asStored(live));
    // The resumed session goes on numbering where the stored transcript ends.
    await (
      await first.resumed.sendMessage('Thanks')
    ).result;
    const continued = current(first.resumed).items;
    expect(continued.slice(live.length).map(label)).toEqual([
      'user message-4',
      'assistant message-5 complete',
    ]);
    const second = await reopen(agent, first.resumed);
    expect(second.state.items).toEqual(asStored(continued));
    await agent.shutdown();
  });

  it('after the tool-call limit: its notice comes from the stored note, in both', async () => {
    const echo = recordingTool('echo');
    const { agent } = await createTestAgent({
      tools: [echo.tool],
      config: { maxToolCallsPerTurn: 1 },
      script: [reply.toolCalls([{ name: 'echo', arguments: { text: 'x' }, callId: 'x' }])],
    });
    const session = await agent.newSession();
    await (
      await session.sendMessage('go')
    ).result;
    const live = current(session).items;
    expect(live.at(-1)).toEqual({
      kind: 'notice',
      id: 'message-4',
      level: 'warning',
      text: 'The turn stopped at its limit of 1 tool calls.',
    });
    // The MAX_TOOL_CALLS_EXCEEDED event tells the same story: it adds no second notice.
    expect(live.filter(isLiveOnlyNotice)).toEqual([]);

    const { state } = await reopen(agent, session);
    expect(state.items).toEqual(asStored(live));
    await agent.shutdown();
  });
});
