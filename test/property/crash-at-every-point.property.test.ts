/**
 * "Crash at every point": a page may die after any stored event. Each run records a whole session
 * on IndexedDB (fake-indexeddb) — tool rounds with read-only and mutating tools, compaction, a
 * cancel — then, for every prefix of its stored events, a fresh Agent resumes that prefix and
 * continues or discards the interrupted turn (or just sends the next message). Always:
 * - the resumed history, every request, and the history stored afterwards pair every `tool_call`
 *   with exactly one `tool_result`;
 * - no user message is stored twice;
 * - a mutating call marked started and never answered is not run again;
 * - afterwards nothing is interrupted any more.
 */
import 'fake-indexeddb/auto';
import fc from 'fast-check';
import { IDBFactory } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import {
  defineTool,
  IndexedDbSessionStorage,
  type ChatRequest,
  type ModelInfo,
  type SessionEvent,
} from '../../src/index.js';
import { reply, SCRIPTED_MODEL, type ScriptedResponse } from '../../src/testing/index.js';
import { createTestAgent } from '../support/agent.js';
import { toolPairingProblems } from '../support/history.js';
import { propertyParameters } from './settings.js';

/** A small window, so a few large tool results make the session compact. */
const SMALL_MODEL: ModelInfo = { ...SCRIPTED_MODEL, contextWindow: 4_000 };
const COMPACTION = { keepRecentToolResults: 1 };
const BIG = 'x'.repeat(5_000);

/** One model round of a recorded turn: tool calls (by tool) or the final answer. */
type Round = readonly ('look' | 'write')[];
interface TurnPlan {
  rounds: readonly Round[];
  /** Cancel the turn when this call (index over the turn's calls) starts. */
  cancelAt: number | null;
}

const turnPlan: fc.Arbitrary<TurnPlan> = fc.record({
  rounds: fc.array(fc.array(fc.constantFrom('look', 'write'), { minLength: 1, maxLength: 3 }), {
    maxLength: 2,
  }),
  cancelAt: fc.option(fc.nat({ max: 3 }), { nil: null }),
});

/**
 * Tools that log which calls ran (`onRun`); `look` returns a large text so compaction happens.
 */
function tools(onRun: (callId: string, name: string) => void) {
  const schema = z.object({ n: z.number() });
  return [
    defineTool({
      name: 'look',
      description: 'reads',
      parameters: schema,
      execute: async ({ callId }) => (onRun(callId, 'look'), BIG),
    }),
    defineTool({
      name: 'write',
      description: 'writes',
      parameters: schema,
      mutating: true,
      execute: async ({ callId }) => (onRun(callId, 'write'), 'written'),
    }),
  ];
}

/** Answers compaction requests with a summary and turn requests from `next`. */
function respond(next: () => ScriptedResponse) {
  return (request: ChatRequest): ScriptedResponse =>
    request.purpose === 'compaction' ? reply.text('Summary of the conversation.') : next();
}

/** An IndexedDB storage that counts the writes that have settled (are durable). */
class CountingStorage extends IndexedDbSessionStorage {
  durable = 0;
  override async saveEvent(...args: Parameters<IndexedDbSessionStorage['saveEvent']>): Promise<void> {
    await super.saveEvent(...args);
    this.durable++;
  }
}

/** A recorded session: its stored events, and when each mutating call began to execute. */
interface Recording {
  events: SessionEvent[];
  /** Mutating call id → how many events were durable when it began to execute. */
  writesBegan: Map<string, number>;
}

/** Records a session following `plans`. */
async function record(plans: readonly TurnPlan[], factory: IDBFactory): Promise<Recording> {
  const storage = new CountingStorage({ indexedDB: factory, dbName: 'recorded' });
  const writesBegan = new Map<string, number>();
  // One queue of responses per turn: a cancelled turn leaves its rest unused.
  let call = 0;
  const queues = plans.map((plan) => [
    ...plan.rounds.map((round) =>
      reply.toolCalls(round.map((name) => ({ name, arguments: { n: call }, callId: `c${call++}` }))),
    ),
    reply.text('Done.'),
  ]);
  let queue: ScriptedResponse[] = [];
  const { agent } = await createTestAgent({
    models: [SMALL_MODEL],
    sessionStorage: storage,
    tools: tools((callId, name) => name === 'write' && writesBegan.set(callId, storage.durable)),
    config: { compaction: COMPACTION },
    script: Array.from({ length: call * 2 + plans.length * 3 + 10 }, () =>
      respond(() => queue.shift() ?? reply.text('extra')),
    ),
  });
  const session = await agent.newSession();
  for (const [i, plan] of plans.entries()) {
    queue = queues[i]!;
    const turn = await session.sendMessage(`turn ${i}`);
    let started = 0;
    turn.events.subscribe((e) => {
      if (e.payload.type === 'tool_call_start' && started++ === plan.cancelAt) turn.cancel();
    });
    await turn.result;
  }
  await session.close();
  await agent.shutdown();
  return { events: (await storage.loadSession(session.id))!, writesBegan };
}

/**
 * The mutating calls that may have run before a crash after `prefix`: they began to execute
 * with at most that many events durable, and the prefix holds no result for them.
 */
function mayHaveRun(prefix: readonly SessionEvent[], writesBegan: ReadonlyMap<string, number>): Set<string> {
  const answered = new Set(
    prefix.flatMap((e) => (e.payload.type === 'tool_result' ? [e.payload.callId] : [])),
  );
  const out = new Set<string>();
  for (const [callId, durable] of writesBegan) {
    if (durable <= prefix.length && !answered.has(callId)) out.add(callId);
  }
  return out;
}

const userCount = (events: readonly SessionEvent[]) =>
  events.filter((e) => e.payload.type === 'user_message').length;

type Choice = 'continue' | 'discard' | 'send';

/** Resumes `prefix`, acts, and checks every invariant. */
async function checkPrefix(recording: Recording, n: number, id: string, choice: Choice, factory: IDBFactory) {
  const prefix = recording.events.slice(0, n);
  const storage = new IndexedDbSessionStorage({ indexedDB: factory, dbName: 'replayed' });
  for (const event of prefix) await storage.saveEvent(id, event);
  const ran: string[] = [];
  const { agent, provider } = await createTestAgent({
    models: [SMALL_MODEL],
    sessionStorage: storage,
    tools: tools((callId) => ran.push(callId)),
    config: { compaction: COMPACTION },
    script: Array.from({ length: 20 }, () => respond(() => reply.text('Continued.'))),
  });
  const resumed = await agent.resumeSession(id);
  expect(toolPairingProblems(resumed.messages)).toEqual([]);

  const interrupted = resumed.interruptedTurn;
  if (interrupted && choice === 'continue') await (await resumed.continueTurn()).result;
  else if (interrupted && choice === 'discard') await resumed.discardInterruptedTurn();
  else await (await resumed.sendMessage('next')).result;

  for (const request of provider.requests) expect(toolPairingProblems(request.messages)).toEqual([]);
  const maybeRan = mayHaveRun(prefix, recording.writesBegan);
  expect(ran.filter((callId) => maybeRan.has(callId))).toEqual([]);
  expect(resumed.interruptedTurn).toBeNull();
  await resumed.close();
  await agent.shutdown();

  const after = (await storage.loadSession(id))!;
  const sent = interrupted && choice !== 'send' ? 0 : 1;
  expect(userCount(after)).toBe(userCount(prefix) + sent);
  const again = await (
    await createTestAgent({ models: [SMALL_MODEL], sessionStorage: storage })
  ).agent.resumeSession(id);
  expect(toolPairingProblems(again.messages)).toEqual([]);
  expect(again.interruptedTurn).toBeNull();
  return interrupted !== null;
}

describe('crash at every point (fake-indexeddb)', () => {
  it('every prefix of a recorded session resumes into a valid history, continued or discarded', async () => {
    let prefixes = 0;
    let interrupted = 0;
    let snapshots = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(turnPlan, { minLength: 1, maxLength: 3 }),
        fc.constantFrom<Choice>('continue', 'discard', 'send'),
        async (plans, choice) => {
          const factory = new IDBFactory();
          const recording = await record(plans, factory);
          const { events } = recording;
          snapshots += events.filter(
            (e) => e.payload.type === 'metadata' && e.payload.key === 'context_snapshot',
          ).length;
          for (let n = 1; n <= events.length; n++) {
            if (await checkPrefix(recording, n, `p${n}`, choice, factory)) interrupted++;
            prefixes++;
          }
        },
      ),
      { ...propertyParameters('PROPERTY_CRASH_RUNS', 40), timeout: 120_000 },
    );
    console.log(
      `crash at every point: ${prefixes} prefixes, ${interrupted} interrupted, ${snapshots} compactions`,
    );
    expect(interrupted).toBeGreaterThan(0);
    expect(snapshots).toBeGreaterThan(0);
  }, 600_000);
});
