/**
 * Path coverage of the Turn machine: `xstate/graph` walks the chart with the step runner's sample
 * `<step>.done` / `<step>.error` events (carrying `output` / `error`, so guards that read them are
 * exercised), and every transition it finds is replayed against a real actor driven by a fake
 * step runner. The test fails unless every state and every transition is reached.
 */
import { describe, expect, it } from 'vitest';
import { waitFor, type EventObject } from 'xstate';
import { getAdjacencyMap, getShortestPaths, type StatePath } from 'xstate/graph';
import { turnMachine, type TurnInput } from '../../machines/turn.machine.js';
import {
  call,
  namedCall,
  createTurnHarness,
  failure,
  fatal,
  response,
  retryable,
  STEP_ACTORS,
  TURN_INPUT,
  usage,
  type StepActor,
  type TurnSnapshot,
} from './turn-harness.js';

// One failed compaction opens the breaker, so the walk also reaches "over the threshold, but
// compaction is off". The chart is walked from both entries: a new turn and a continued one;
// and for a turn with a budget that asks for structured output (its requests are checked first,
// its answers validated); and for a turn where no call can wait for a decision (its batches
// run without a review).
const INPUTS = [
  { ...TURN_INPUT, maxCompactionFailures: 1 },
  { ...TURN_INPUT, maxCompactionFailures: 1, continued: true },
  { ...TURN_INPUT, maxCompactionFailures: 1, outputRepairs: 1, budgeted: true },
  { ...TURN_INPUT, maxCompactionFailures: 1, approvalsPossible: false },
];

type SampleEvent = EventObject & { output?: unknown; error?: unknown; label: string };

const done = (actor: StepActor, label: string, output?: unknown): SampleEvent => ({
  type: `${actor}.done`,
  output,
  label,
});
const failed = (actor: StepActor, label: string, error: unknown): SampleEvent => ({
  type: `${actor}.error`,
  error,
  label,
});

/** The step each step state runs (its entry action), by the state's name. */
const STEP_OF_STATE: Record<string, StepActor> = {
  resuming: 'resumeTurn',
  starting: 'startTurn',
  preparing: 'prepareRequest',
  compacting: 'compactContext',
  checkingBudget: 'checkBudget',
  requesting: 'streamModel',
  validatingOutput: 'validateOutput',
  waitingToRetry: 'waitToRetry',
  reviewingTools: 'reviewToolCalls',
  awaitingApproval: 'awaitApprovals',
  dispatchingTools: 'runToolBatch',
  finishing: 'endTurn',
  cancelling: 'endTurn',
  failing: 'endTurn',
};

/** The name of the atomic state `value` is in. */
function leafOf(value: unknown): string {
  if (typeof value === 'string') return value;
  return leafOf(Object.values(value as Record<string, unknown>)[0]);
}

/** Sample events per running step: every outcome its guards tell apart. */
function sampleEvents(snapshot: TurnSnapshot): SampleEvent[] {
  const events: SampleEvent[] = [{ type: 'CANCEL', label: 'cancel' }];
  // A state not in the table runs no step (a final state); one missing from it would leave its
  // transitions unreached, and the coverage checks below fail.
  const running = snapshot.status === 'done' ? [] : [STEP_OF_STATE[leafOf(snapshot.value)]].filter(Boolean);
  for (const actor of running as StepActor[]) {
    switch (actor) {
      case 'prepareRequest':
        events.push(
          done(actor, 'fits', { needsCompaction: false }),
          done(actor, 'over', { needsCompaction: true }),
        );
        break;
      case 'startTurn':
        events.push(done(actor, 'ok', { dynamicSections: [] }));
        break;
      case 'resumeTurn':
        events.push(
          done(actor, 'nothing to run', { dynamicSections: [], toolCalls: [] }),
          done(actor, 'calls to run', { dynamicSections: [], toolCalls: [call('a')] }),
          done(actor, 'awaiting approval', {
            dynamicSections: [],
            toolCalls: [call('a')],
            approvals: {
              calls: [call('a')],
              awaiting: [{ callId: 'a', toolName: 'echo', requestedAt: '2030-01-01T00:00:00.000Z' }],
              decided: [],
            },
          }),
        );
        break;
      case 'compactContext':
        events.push(
          done(actor, 'compacted', { usage: usage(3, 1), compactionFailures: 0 }),
          done(actor, 'failed', { usage: null, compactionFailures: 1 }),
        );
        break;
      case 'streamModel':
        events.push(
          done(actor, 'answer', response([], usage(5, 2))),
          done(actor, 'tools', response([call('a')], null)),
          done(actor, 'final answer', response([namedCall('f', 'final_answer')], null)),
          done(actor, 'retryable', failure(retryable())),
          done(actor, 'after output', failure(retryable(), true)),
          done(actor, 'fatal', failure(fatal())),
        );
        break;
      case 'waitToRetry':
        events.push(done(actor, 'retry', { retry: true }), done(actor, 'stopped by hook', { retry: false }));
        break;
      case 'reviewToolCalls':
        events.push(
          done(actor, 'none pending', { awaiting: [], decided: [] }),
          done(actor, 'pending', {
            awaiting: [{ callId: 'a', toolName: 'echo', requestedAt: null }],
            decided: [],
          }),
        );
        break;
      case 'awaitApprovals':
        events.push(
          done(actor, 'denied', { decided: [{ callId: 'a', approved: false, by: 'user', reason: 'no' }] }),
        );
        break;
      case 'runToolBatch':
        events.push(done(actor, 'batch', { count: 1 }));
        break;
      case 'endTurn':
        events.push(done(actor, 'ok', { checkpointed: false }));
        break;
      case 'checkBudget':
        events.push(
          done(actor, 'fits', { allowed: true, maxOutputTokens: 100 }),
          done(actor, 'exhausted', { allowed: false }),
        );
        break;
      case 'validateOutput':
        events.push(
          done(actor, 'accepted', { verdict: 'accepted' }),
          // The step grants a repair only while rounds are left.
          ...(snapshot.context.repairsUsed < (snapshot.context.outputRepairs ?? 0)
            ? [done(actor, 'repair', { verdict: 'repair' })]
            : []),
          done(actor, 'rejected', { verdict: 'rejected', error: fatal('invalid output') }),
        );
        break;
      default:
        events.push(done(actor, 'ok'));
    }
    events.push(failed(actor, 'crash', fatal('crash')));
  }
  return events;
}

const serializeState = (s: TurnSnapshot) =>
  JSON.stringify([
    s.value,
    s.context.attempt,
    s.context.toolCallCount,
    s.context.compactionFailures,
    s.context.cancelRequested,
    s.context.repairsUsed,
    s.status,
  ]);
const serializeEvent = (e: SampleEvent) => `${e.type}:${e.label}`;

const traversal = (input: TurnInput) => ({
  input,
  events: sampleEvents as (s: TurnSnapshot) => never[],
  serializeState,
  serializeEvent: serializeEvent as (e: EventObject) => string,
  limit: 10_000,
});

/** Every edge the chart has under the sample events, as (state, event, next state). */
function allTransitions(input: TurnInput) {
  const map = getAdjacencyMap(turnMachine, traversal(input));
  const edges: { from: string; event: SampleEvent; to: string }[] = [];
  for (const [from, { state: source, transitions }] of Object.entries(map)) {
    if ((source as TurnSnapshot).status === 'done') continue; // a final state takes no events
    for (const transition of Object.values(transitions) as { event: unknown; state: unknown }[]) {
      const { event, state } = transition;
      const e = event as SampleEvent;
      const to = serializeState(state as TurnSnapshot);
      if (to !== from || e.type === 'CANCEL') edges.push({ from, event: e, to });
    }
  }
  return edges;
}

/**
 * Atomic state paths of the machine definition, e.g. `working.requesting`, `completed`. A
 * transient state (only eventless `always` transitions, such as `routing`) is never at rest, so
 * no snapshot shows it; the states it routes to are reached through it.
 */
function atomicStatePaths(): string[] {
  const out: string[] = [];
  const visit = (node: typeof turnMachine.root, path: string[]) => {
    const children = Object.values(node.states);
    const transient = (node.always?.length ?? 0) > 0;
    if (children.length === 0 && !transient) out.push(path.join('.'));
    for (const child of children) visit(child, [...path, child.key]);
  };
  visit(turnMachine.root, []);
  return out;
}

function valueToPath(value: unknown): string {
  if (typeof value === 'string') return value;
  const [k, v] = Object.entries(value as Record<string, unknown>)[0]!;
  return `${k}.${valueToPath(v)}`;
}

/** Replays a path's events against a real actor whose steps are fakes; checks each state. */
async function replay(input: TurnInput, steps: { event: SampleEvent; state: TurnSnapshot }[]) {
  const h = createTurnHarness(input);
  for (const { event, state } of steps) {
    if (event.type === 'xstate.init') continue;
    if (event.type === 'CANCEL') h.cancel();
    else {
      const [actor, kind] = event.type.split('.') as [StepActor, 'done' | 'error'];
      if (kind === 'done') await h.done(actor, event.output);
      else await h.fail(actor, event.error);
    }
    await waitFor(h.actor, (s) => serializeState(s) === serializeState(state), { timeout: 1000 });
  }
  expect(h.errors).toEqual([]);
  return h;
}

describe('Turn machine paths (xstate/graph)', () => {
  const walks = INPUTS.map((input) => {
    const shortest = getShortestPaths(turnMachine, traversal(input)) as unknown as StatePath<
      TurnSnapshot,
      SampleEvent
    >[];
    return {
      input,
      shortest,
      byState: new Map(shortest.map((p) => [serializeState(p.state), p])),
      edges: allTransitions(input),
    };
  });

  it('reaches every state of the chart', () => {
    const reached = new Set(walks.flatMap((w) => w.shortest.map((p) => valueToPath(p.state.value))));
    const all = atomicStatePaths();
    console.log(`Turn machine states reached: ${reached.size}/${all.length}`);
    expect([...reached].sort()).toEqual([...all].sort());
  });

  it('replays every transition against a running actor', async () => {
    const definedEvents = new Set<string>();
    for (const name of STEP_ACTORS) {
      definedEvents.add(`${name}.done`);
      definedEvents.add(`${name}.error`);
    }
    const coveredEventTypes = new Set<string>();
    let replayed = 0;
    let total = 0;
    for (const { input, byState, edges } of walks) {
      total += edges.length;
      for (const edge of edges) {
        const prefix = byState.get(edge.from);
        if (!prefix) throw new Error(`no path to ${edge.from}`);
        const toState = byState.get(edge.to)?.state;
        if (!toState) throw new Error(`no path to ${edge.to}`);
        await replay(input, [...prefix.steps, { event: edge.event, state: toState }]);
        coveredEventTypes.add(edge.event.type);
        replayed++;
      }
    }
    console.log(`Turn machine transitions replayed: ${replayed}/${total}`);
    expect(replayed).toBe(total);
    // Every step's done and error route is exercised, and CANCEL.
    for (const type of definedEvents) expect(coveredEventTypes, type).toContain(type);
    expect(coveredEventTypes).toContain('CANCEL');
  }, 240_000);

  it('every path ends in exactly one terminal emission', async () => {
    for (const { input, shortest } of walks) {
      const finals = shortest.filter((p) => p.state.status === 'done');
      expect([...new Set(finals.map((p) => p.state.value))].sort()).toEqual([
        'cancelled',
        'completed',
        'failed',
      ]);
      for (const path of finals) {
        const h = await replay(input, path.steps);
        expect(h.actions.filter((a) => a.type === 'emitTerminal')).toHaveLength(1);
      }
    }
  });
});
