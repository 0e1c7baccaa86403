/**
 * The dropped-handle path of the session lifecycle: a `Session` garbage-collected without
 * `close()` fires no `session_end` and extracts no memories, but its running turn is cancelled,
 * and the agent's slot frees only once that turn has ended.
 *
 * Needs `global.gc`: vitest must start its workers with `--expose-gc` (`execArgv` in the test
 * config, or `npx vitest run --execArgv=--expose-gc`). Without it these tests fail and say so.
 */
import { describe, expect, it } from 'vitest';
import { InMemoryMemoryStorage, type Agent, type Plugin, type RunningTurn } from '../../src/index.js';
import type { ScriptStep } from '../../src/testing/index.js';
import { createTestAgent, testPlugin } from '../support/agent.js';
import { expectAgentError } from '../support/errors.js';
import { eventsOf, firstEvent } from '../support/events.js';
import { deferred } from '../support/waits.js';

const NAMESPACE = 'user-1';
const MAX_COLLECTIONS = 200;

/** A full garbage collection; fails loudly when the worker runs without `--expose-gc`. */
function collectGarbage(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (typeof gc !== 'function') {
    throw new Error(
      'global.gc is missing: run this file with --expose-gc ' +
        '(vite.config.ts test.execArgv: ["--expose-gc"], or `npx vitest run --execArgv=--expose-gc`)',
    );
  }
  gc();
}

/**
 * Collects garbage and lets finalizers run (they are queued as tasks) until `condition` holds.
 * Bounded by a number of collections, not by time: a collection does not promise to find the
 * handle, nor its finalizer to run in the same task, so this is the one loop the tests need.
 */
async function collectUntil(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < MAX_COLLECTIONS && !condition(); i++) {
    collectGarbage();
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  if (!condition()) throw new Error(`${what}: still not seen after ${MAX_COLLECTIONS} garbage collections`);
}

/** A plugin that logs hooks; its `turn_end` handler waits for `turnEndGate` (holding the turn open). */
function probe(log: string[], turnEndGate: Promise<void>): Plugin {
  return testPlugin('probe', {
    session_end: ({ data }) => void log.push(`session_end ${data.reason}`),
    turn_end: async ({ data }) => {
      log.push(`turn_end ${data.status}`);
      await turnEndGate;
    },
  });
}

/** A response that streams one delta and then never ends on its own. */
const endless: ScriptStep = [
  { type: 'text_delta', text: 'Once upon' },
  { type: 'wait', until: new Promise<void>(() => {}) },
];

/**
 * Opens a session, starts a turn, waits until it is mid-stream, and returns only the turn: the
 * `Session` handle dies with this function's scope (a RunningTurn does not keep it alive).
 */
async function startTurnAndDropSession(
  agent: Agent,
): Promise<{ turn: RunningTurn; sessionEvents: { completed: boolean } }> {
  const session = await agent.newSession();
  // The stream is the session's, not the handle's: subscribing keeps no reference to `session`.
  const sessionEvents = { completed: false };
  session.events.subscribe({ complete: () => (sessionEvents.completed = true) });
  const turn = await session.sendMessage('Tell me a long story.');
  await firstEvent(turn.events, 'text_delta');
  return { turn, sessionEvents };
}

async function openAndDropIdleSession(agent: Agent): Promise<string> {
  const session = await agent.newSession();
  return session.id;
}

describe('a Session handle dropped without close()', () => {
  it('cancels its running turn, fires no session_end, extracts nothing, and frees the slot once the turn has ended', async () => {
    const log: string[] = [];
    const holdTurnEnd = deferred();
    const memories = new InMemoryMemoryStorage();
    const { agent, provider } = await createTestAgent({
      script: [endless],
      memory: { namespace: NAMESPACE },
      memoryStorage: memories,
      plugins: [probe(log, holdTurnEnd.promise)],
    });

    const { turn, sessionEvents } = await startTurnAndDropSession(agent);
    // The drop is seen when the turn starts ending: its turn_end hook runs (and we hold it there).
    await collectUntil(() => log.includes('turn_end cancelled'), 'the dropped session cancelling its turn');

    // The turn has not ended yet, so the slot is still taken.
    await expectAgentError(agent.newSession(), 'SESSION_BUSY');

    holdTurnEnd.resolve();
    expect((await turn.result).status).toBe('cancelled');
    expect(provider.aborted).toBe(1);
    expect((await eventsOf(turn)).map((e) => e.payload.type)).toEqual(['text_delta', 'turn_cancelled']);

    const next = await agent.newSession();
    expect(next.id).toEqual(expect.any(String));
    expect(log).toEqual(['turn_end cancelled']);
    expect(provider.requests.map((r) => r.purpose)).toEqual(['turn']);
    expect(await memories.search(NAMESPACE, '', 10)).toEqual([]);
    expect(sessionEvents.completed).toBe(true);
    await next.close();
    await agent.shutdown();
  });

  it('frees the slot of a dropped idle session without session_end', async () => {
    const log: string[] = [];
    const { agent, provider } = await createTestAgent({
      memory: { namespace: NAMESPACE },
      plugins: [probe(log, Promise.resolve())],
    });

    const droppedId = await openAndDropIdleSession(agent);
    expect(agent.actor.getSnapshot().matches('ready')).toBe(false);
    await collectUntil(
      () => agent.actor.getSnapshot().matches('ready'),
      'the slot of the dropped session freeing',
    );

    const next = await agent.newSession();
    expect(next.id).not.toBe(droppedId);
    expect(log).toEqual([]);
    expect(provider.calls).toBe(0);
    await agent.shutdown();
    // Shutdown closes only the live session: still no session_end for the dropped one.
    expect(log).toEqual(['session_end shutdown']);
  });
});
