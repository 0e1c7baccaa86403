/**
 * `session.conversation` emits the current state on subscribe, then one state per change, and
 * completes when the session is closed; a subscriber after the close gets the last state.
 */
import { firstValueFrom, filter } from 'rxjs';
import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { defineTool, type Conversation, type Session } from '../../src/index.js';
import { reply } from '../../src/testing/index.js';
import { createTestAgent } from '../support/agent.js';
import { deferred } from '../support/waits.js';
import { current, label, record } from './support.js';

describe('session.conversation', () => {
  it('emits the current state at once on subscribe', async () => {
    const { agent } = await createTestAgent({ script: [reply.text('Hi!')] });
    const session = await agent.newSession();
    const recorder = record(session);
    expect(recorder.states).toHaveLength(1);
    expect(recorder.latest).toEqual({
      items: [],
      turn: null,
      usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
      cost: null,
      context: { estimatedTokens: expect.any(Number), contextWindow: 128_000, compactAt: 95_200 },
    });
    await (
      await session.sendMessage('Hello')
    ).result;
    // A later subscriber starts from the state now, the same object the first one holds.
    expect(current(session)).toBe(recorder.latest);
    expect(recorder.latest.items.map(label)).toEqual(['user message-0', 'assistant message-1 complete']);
    await agent.shutdown();
  });

  it('shows the turn in flight until its result has settled', async () => {
    const held = deferred();
    const { agent } = await createTestAgent({
      script: [
        [
          { type: 'wait', until: held.promise },
          { type: 'text_delta', text: 'ok' },
          { type: 'done', finishReason: 'stop' },
        ],
      ],
    });
    const session = await agent.newSession();
    const recorder = record(session);
    const turn = await session.sendMessage('Hello');
    expect(current(session).turn).toEqual({ id: turn.id, status: 'running' });
    // The user message joins once the turn's start step (the turn_start hook) has run.
    const started = await firstValueFrom(session.conversation.pipe(filter((s) => s.items.length > 0)));
    expect(started.items.map(label)).toEqual(['user message-0']);
    held.resolve();
    const ended = await firstValueFrom(session.conversation.pipe(filter((s) => s.turn === null)));
    expect(ended.items.map(label)).toEqual(['user message-0', 'assistant message-1 complete']);
    await turn.result;
    // Each change is one state: started, user message, the delta, the message, the end.
    expect(recorder.states.map((s) => [s.turn?.status ?? null, s.items.map(label).join(', ')])).toEqual([
      [null, ''],
      ['running', ''],
      ['running', 'user message-0'],
      ['running', 'user message-0, assistant message-1 streaming'],
      ['running', 'user message-0, assistant message-1 complete'],
      [null, 'user message-0, assistant message-1 complete'],
    ]);
    await agent.shutdown();
  });

  it('a conversation nobody watched shows, when subscribed to mid-turn and after, what a watcher saw', async () => {
    // Two sessions run the same turn: one watched throughout, one nobody subscribes to, which
    // makes its state only when asked.
    const turnScript = () => [
      reply.toolCalls([{ name: 'echo', arguments: { text: 'a' }, callId: 'call-1' }]),
      [
        { type: 'text_delta' as const, text: 'Do' },
        { type: 'wait' as const, until: held.promise },
        { type: 'text_delta' as const, text: 'ne' },
        { type: 'done' as const, finishReason: 'stop' },
      ],
    ];
    let held = deferred();
    const echo = defineTool({
      name: 'echo',
      description: 'Echoes',
      parameters: z.object({ text: z.string() }),
      execute: async ({ arguments: { text } }) => text,
    });
    const watchedAgent = await createTestAgent({ script: turnScript(), tools: [echo] });
    const watched = await watchedAgent.agent.newSession();
    const recorder = record(watched);
    const watchedTurn = await watched.sendMessage('Go');
    const streamed = (session: Session) =>
      firstValueFrom(session.events.pipe(filter(({ payload }) => payload.type === 'text_delta')));
    await streamed(watched);
    const watchedMidTurn = recorder.latest;
    held.resolve();
    await watchedTurn.result;

    held = deferred();
    const unwatchedAgent = await createTestAgent({ script: turnScript(), tools: [echo] });
    const unwatched = await unwatchedAgent.agent.newSession();
    const delta = streamed(unwatched);
    const unwatchedTurn = await unwatched.sendMessage('Go');
    await delta;
    const midTurn = current(unwatched);
    held.resolve();
    await unwatchedTurn.result;
    const after = current(unwatched);

    const shape = (state: Conversation) => ({
      items: state.items.map(label),
      turn: state.turn?.status ?? null,
      usage: state.usage,
    });
    expect(shape(midTurn)).toEqual(shape(watchedMidTurn));
    expect(shape(after)).toEqual(shape(recorder.latest));
    // Asked twice with nothing changed in between: the same state object.
    expect(current(unwatched)).toBe(after);
    await watchedAgent.agent.shutdown();
    await unwatchedAgent.agent.shutdown();
  });

  it('completes at close; a later subscriber gets the last state, then completes', async () => {
    const { agent } = await createTestAgent({ script: [reply.text('Bye.')] });
    const session = await agent.newSession();
    const recorder = record(session);
    await (
      await session.sendMessage('Bye')
    ).result;
    expect(recorder.completed).toBe(false);
    await session.close();
    expect(recorder.completed).toBe(true);

    const late: unknown[] = [];
    let lateCompleted = false;
    session.conversation.subscribe({ next: (s) => late.push(s), complete: () => (lateCompleted = true) });
    expect(late).toEqual([recorder.latest]);
    expect(lateCompleted).toBe(true);
    await agent.shutdown();
  });

  it('takes a message sent as soon as the turn is gone, and keeps the order of states for every subscriber', async () => {
    const { agent } = await createTestAgent({ script: [reply.text('a'), reply.text('b')] });
    const session = await agent.newSession();
    const seen: (string | null)[] = [];
    const sent: Promise<unknown>[] = [];
    // The first subscriber sends the next message while the state "no turn" is being emitted...
    session.conversation.subscribe((s) => {
      if (s.turn === null && s.items.length === 2 && sent.length === 0)
        sent.push(session.sendMessage('again'));
    });
    // ...and the second still sees that state before the new turn's.
    session.conversation.subscribe((s) => {
      const turn = s.turn?.id ?? null;
      if (seen.at(-1) !== turn) seen.push(turn);
    });
    const first = await session.sendMessage('first');
    await first.result;
    const second = (await sent[0]) as typeof first;
    await second.result;
    expect(seen).toEqual([null, first.id, null, second.id, null]);
    expect(current(session).items.map(label)).toEqual([
      'user message-0',
      'assistant message-1 complete',
      'user message-2',
      'assistant message-3 complete',
    ]);
    await agent.shutdown();
  });
});
