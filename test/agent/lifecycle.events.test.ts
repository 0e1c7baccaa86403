/**
 * The event contract: `sequence` from 1 per Session object, +1 per event
 * across turns; `turn.events` replays a finished turn and completes; every turn ends with exactly
 * one terminal event, its last; `turnId` is null for session-level events.
 */
import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import {
  AgentError,
  AgentEventSchema,
  type AgentEvent,
  type RunningTurn,
  type Session,
} from '../../src/index.js';
import { reply, type ScriptStep } from '../../src/testing/index.js';
import { createTestAgent, recordingTool, testPlugin } from '../support/agent.js';
import { eventsOf, firstEvent, recordEvents, types } from '../support/events.js';
import { deferred } from '../support/waits.js';

/** Every event of `session` from now on, live. */
const liveEvents = (session: Session): AgentEvent[] => recordEvents(session.events).events;

const sequences = (events: AgentEvent[]) => events.map((e) => e.sequence);
const oneTo = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

/** Whether an event ends a turn: turn_complete, turn_cancelled, or a fatal error. */
function isTerminal(event: AgentEvent): boolean {
  const p = event.payload;
  return p.type === 'turn_complete' || p.type === 'turn_cancelled' || (p.type === 'error' && p.fatal);
}

describe('sequence numbers', () => {
  it('start at 1 and increase by exactly 1 across turns; each event is valid and names its session and turn', async () => {
    const { tool } = recordingTool('echo');
    const { agent } = await createTestAgent({
      tools: [tool],
      script: [
        reply.toolCalls([{ name: 'echo', arguments: { text: 'ping' } }], {
          usage: { inputTokens: 10, outputTokens: 2 },
        }),
        reply.text('pong', { chunks: 2, usage: { inputTokens: 12, outputTokens: 1 } }),
        reply.text('second answer', { chunks: 3 }),
      ],
    });
    const session = await agent.newSession();
    const seen = liveEvents(session);

    const first = await session.sendMessage('ping please');
    const firstEvents = await eventsOf(first);
    const second = await session.sendMessage('again');
    const secondEvents = await eventsOf(second);

    expect(seen.length).toBeGreaterThan(8);
    expect(sequences(seen)).toEqual(oneTo(seen.length));
    expect(seen).toEqual([...firstEvents, ...secondEvents]);
    expect(secondEvents[0]!.sequence).toBe(firstEvents.at(-1)!.sequence + 1);
    for (const event of seen) {
      expect(z.safeParse(AgentEventSchema, event).success).toBe(true);
      expect(event.sessionId).toBe(session.id);
    }
    expect(new Set(firstEvents.map((e) => e.turnId))).toEqual(new Set([first.id]));
    expect(new Set(secondEvents.map((e) => e.turnId))).toEqual(new Set([second.id]));
    await agent.shutdown();
  });

  it('start again at 1 for a resumed session and for the next new session (per Session object)', async () => {
    const { agent } = await createTestAgent({
      script: [reply.text('one', { chunks: 2 }), reply.text('two', { chunks: 2 }), reply.text('three')],
    });
    const session = await agent.newSession();
    await (
      await session.sendMessage('first')
    ).result;
    await session.close();

    const resumed = await agent.resumeSession(session.id);
    const resumedSeen = liveEvents(resumed);
    await (
      await resumed.sendMessage('second')
    ).result;
    await resumed.close();
    expect(sequences(resumedSeen)).toEqual([1, 2, 3]);

    const fresh = await agent.newSession();
    const freshSeen = liveEvents(fresh);
    await (
      await fresh.sendMessage('third')
    ).result;
    expect(sequences(freshSeen)).toEqual([1, 2]);
    await agent.shutdown();
  });
});

describe('session.events', () => {
  it('is live: a subscriber that comes after a turn gets only what follows, not that turn again', async () => {
    const { agent } = await createTestAgent({
      script: [reply.text('first answer'), reply.text('second answer')],
    });
    const session = await agent.newSession();
    const early = liveEvents(session);
    const first = await session.sendMessage('first');
    await first.result;

    const late = liveEvents(session);
    const second = await session.sendMessage('second');
    await second.result;

    expect(new Set(late.map((e) => e.turnId))).toEqual(new Set([second.id]));
    expect(late).toEqual(early.filter((e) => e.turnId === second.id));
    expect(late[0]!.sequence).toBe(early.find((e) => e.turnId === second.id)!.sequence);
    await agent.shutdown();
  });

  it('is live for its first subscriber too, when that subscriber comes after a turn', async () => {
    const { agent } = await createTestAgent({
      script: [reply.text('first answer'), reply.text('second answer')],
    });
    const session = await agent.newSession();
    const first = await session.sendMessage('first');
    await first.result;

    const late = liveEvents(session);
    const second = await session.sendMessage('second');
    await second.result;

    expect(late.map((e) => [e.turnId, e.payload.type])).toEqual([
      [second.id, 'text_delta'],
      [second.id, 'turn_complete'],
    ]);
    await agent.shutdown();
  });
});

describe('turn.events', () => {
  it('subscribed after the turn finished, replays the whole turn and completes', async () => {
    const { agent } = await createTestAgent({
      script: [reply.text('a late reader', { chunks: 4, usage: { outputTokens: 3 } })],
    });
    const session = await agent.newSession();
    const seen = liveEvents(session);
    const turn = await session.sendMessage('hello');
    await turn.result;
    expect(seen.at(-1)!.payload.type).toBe('turn_complete');

    // eventsOf only settles when the stream completes.
    const replayed = await eventsOf(turn);
    expect(replayed).toEqual(seen);
    expect(types(replayed)).toEqual([
      'text_delta',
      'text_delta',
      'text_delta',
      'text_delta',
      'usage',
      'turn_complete',
    ]);
    // And again, for a second late reader.
    expect(await eventsOf(turn)).toEqual(replayed);
    await agent.shutdown();
  });

  it('given to a subscriber mid-turn, replays what was already emitted, then continues live', async () => {
    const release = deferred();
    const { agent } = await createTestAgent({
      script: [
        [
          { type: 'text_delta', text: 'early ' },
          { type: 'wait', until: release.promise },
          ...reply.text('late'),
        ],
      ],
    });
    const session = await agent.newSession();
    const turn = await session.sendMessage('hello');
    await firstEvent(turn.events, 'text_delta');

    const all = eventsOf(turn);
    release.resolve();
    expect(
      (await all).map((e) => (e.payload.type === 'text_delta' ? e.payload.text : e.payload.type)),
    ).toEqual(['early ', 'late', 'turn_complete']);
    await agent.shutdown();
  });
});

describe('terminal events', () => {
  /** A plugin whose post_request hook throws: a non-fatal error inside an otherwise fine turn. */
  const faultyPostRequest = testPlugin('faulty', {
    post_request: () => {
      throw new Error('metrics backend down');
    },
  });

  it('every turn — completed, cancelled, failed before and after output — has exactly one, and it is its last event', async () => {
    const release = deferred();
    const { agent } = await createTestAgent({
      plugins: [faultyPostRequest],
      script: [
        reply.text('fine'),
        [
          { type: 'text_delta', text: 'partial' },
          { type: 'wait', until: release.promise },
          ...reply.text(' never'),
        ],
        reply.error(new AgentError('PROVIDER_ERROR', 'bad request', { retryable: false })),
        [
          { type: 'text_delta', text: 'half an answer' },
          { type: 'throw', error: new Error('stream broke') },
        ],
      ],
    });
    const session = await agent.newSession();
    const seen = liveEvents(session);

    const turns: RunningTurn[] = [];
    const statuses: string[] = [];
    for (const text of ['completes', 'is cancelled', 'fails at once', 'fails after output']) {
      const turn = await session.sendMessage(text);
      turns.push(turn);
      if (text === 'is cancelled') {
        await firstEvent(turn.events, 'text_delta');
        turn.cancel();
      }
      statuses.push((await turn.result).status);
    }
    expect(statuses).toEqual(['completed', 'cancelled', 'failed', 'failed']);

    const expectedTerminal = ['turn_complete', 'turn_cancelled', 'error', 'error'];
    for (const [i, turn] of turns.entries()) {
      const events = await eventsOf(turn);
      const terminals = events.filter(isTerminal);
      expect(terminals, `turn ${i}`).toHaveLength(1);
      expect(events.at(-1), `turn ${i}`).toBe(terminals[0]);
      expect(terminals[0]!.payload.type).toBe(expectedTerminal[i]);
      // Nothing of this turn reaches the session stream after its terminal event.
      const lastOfTurn = seen.filter((e) => e.turnId === turn.id).at(-1);
      expect(lastOfTurn).toEqual(terminals[0]);
    }
    // The completed turn carried a non-fatal HOOK_FAILED error, which did not end it.
    const completed = await eventsOf(turns[0]!);
    expect(types(completed)).toEqual(['text_delta', 'error', 'turn_complete']);
    expect(completed[1]!.payload).toMatchObject({ fatal: false, error: { code: 'HOOK_FAILED' } });
    await agent.shutdown();
  });
});

describe('session-level events', () => {
  it('have turnId null: the memory extraction’s usage at close comes after the turns, in the same sequence', async () => {
    const extraction: ScriptStep = reply.text('{"memories":[{"content":"likes tea"}]}', {
      usage: { inputTokens: 50, outputTokens: 9 },
    });
    const { agent } = await createTestAgent({
      script: [reply.text('Noted.'), extraction],
      memory: { namespace: 'user-1' },
    });
    const session = await agent.newSession();
    const seen = liveEvents(session);
    const turn = await session.sendMessage('I like tea.');
    await turn.result;
    await session.close();

    expect(seen.map((e) => [e.turnId, e.payload.type])).toEqual([
      [turn.id, 'text_delta'],
      [turn.id, 'turn_complete'],
      [null, 'usage'],
    ]);
    expect(seen.at(-1)!.payload).toMatchObject({
      type: 'usage',
      usage: { inputTokens: 50, outputTokens: 9, totalTokens: 59 },
    });
    expect(sequences(seen)).toEqual([1, 2, 3]);
    await agent.shutdown();
  });
});
