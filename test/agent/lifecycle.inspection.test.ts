/**
 * `AgentConfig.inspect`: one observer, given to the root actor, sees snapshots of all three
 * machines (Agent, Session, Turn: one actor system), offline — and the snapshots carry ids and
 * status, not the conversation.
 */
import { describe, expect, it } from 'vitest';
import type { InspectionEvent } from 'xstate';
import type { InspectionObserver } from '../../src/index.js';
import { reply } from '../../src/testing/index.js';
import { createTestAgent } from '../support/agent.js';

const SECRET = 'my passport number is X1234567';

interface SnapshotSeen {
  machine: string;
  value: unknown;
  context: unknown;
}

/** The `@xstate.snapshot` events of state machines (promise actors have no machine id). */
function machineSnapshots(events: InspectionEvent[]): SnapshotSeen[] {
  const seen: SnapshotSeen[] = [];
  for (const event of events) {
    if (event.type !== '@xstate.snapshot') continue;
    // `actorRef` is typed loosely; at run time it is the actor, whose `logic` is the machine.
    const machine = (event.actorRef as unknown as { logic?: { id?: unknown } }).logic?.id;
    if (typeof machine !== 'string') continue;
    const snapshot = event.snapshot as { value?: unknown; context?: unknown };
    seen.push({ machine, value: snapshot.value, context: snapshot.context });
  }
  return seen;
}

/** The names of the leaf states in a state value (`{ working: 'starting' }` → `starting`). */
function leaves(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (typeof value === 'object' && value !== null) return Object.values(value).flatMap(leaves);
  return [];
}

/** Every leaf state `machine` was seen in. */
function statesOf(seen: SnapshotSeen[], machine: string): Set<string> {
  return new Set(seen.filter((s) => s.machine === machine).flatMap((s) => leaves(s.value)));
}

/** Runs a whole session (open, one turn, close, shutdown) with `inspect` as the observer. */
async function runOneSession(inspect: InspectionObserver) {
  const { agent } = await createTestAgent({
    script: [reply.text('Noted.', { chunks: 2 })],
    sessionStorage: null,
    config: { inspect },
  });
  const session = await agent.newSession();
  const turn = await session.sendMessage(SECRET);
  await turn.result;
  await session.close();
  await agent.shutdown();
  return { sessionId: session.id, turnId: turn.id };
}

describe('AgentConfig.inspect', () => {
  it('a plain function observer receives snapshots from the agent, session and turn machines, through their lifecycles', async () => {
    const events: InspectionEvent[] = [];
    const { sessionId, turnId } = await runOneSession((event: InspectionEvent) => events.push(event));
    const seen = machineSnapshots(events);

    expect(new Set(seen.map((s) => s.machine))).toEqual(new Set(['agent', 'session', 'turn']));
    for (const state of ['ready', 'sessionActive', 'stopped'])
      expect(statesOf(seen, 'agent')).toContain(state);
    for (const state of ['idle', 'running', 'closing', 'closed'])
      expect(statesOf(seen, 'session')).toContain(state);
    for (const state of ['starting', 'preparing', 'requesting', 'finishing', 'completed']) {
      expect(statesOf(seen, 'turn')).toContain(state);
    }
    // The snapshots name the session and turn they belong to.
    expect(seen.find((s) => s.machine === 'session')!.context).toMatchObject({ sessionId });
    expect(seen.find((s) => s.machine === 'turn')!.context).toMatchObject({ sessionId, turnId });
  });

  it('an observer object works too, and no snapshot context holds the conversation', async () => {
    const events: InspectionEvent[] = [];
    await runOneSession({ next: (event: InspectionEvent) => events.push(event) });
    const seen = machineSnapshots(events);

    expect(new Set(seen.map((s) => s.machine))).toEqual(new Set(['agent', 'session', 'turn']));
    for (const snapshot of seen) expect(JSON.stringify(snapshot.context)).not.toContain('passport');
  });
});
