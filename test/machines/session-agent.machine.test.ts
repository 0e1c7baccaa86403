/**
 * The Session and Agent machines driven with fake children (`machine.provide`): the turn and
 * session are tiny stand-in machines the test finishes by hand; steps are controllable promises.
 */
import { describe, expect, it } from 'vitest';
import {
  createActor,
  createMachine,
  fromPromise,
  setup,
  waitFor,
  type AnyActorRef,
  type StateValue,
} from 'xstate';
import { agentMachine } from '../../machines/agent.machine.js';
import { sessionMachine, type SessionInput } from '../../machines/session.machine.js';
import type { TurnInput, TurnOutput } from '../../machines/turn.types.js';
import { ZERO_USAGE } from '../../src/types.js';

/** What the fake turn reports when it finishes, and the inputs it was started with. */
interface TurnScript {
  inputs: TurnInput[];
  outcome: Pick<TurnOutput, 'compactionFailures' | 'checkpointed'>;
}

/** A turn stand-in: ends on FINISH (with the scripted counters), or cancelled on CANCEL. */
function fakeTurn(script: TurnScript) {
  return setup({ types: { input: {} as TurnInput, context: {} as TurnInput } }).createMachine({
    id: 'turn',
    context: ({ input }) => {
      script.inputs.push(input);
      return input;
    },
    initial: 'running',
    states: {
      running: { on: { FINISH: 'done', CANCEL: 'cancelled' } },
      done: { type: 'final' },
      cancelled: { type: 'final' },
    },
    output: ({ context }): TurnOutput => ({
      status: 'completed',
      usage: ZERO_USAGE,
      finishReason: 'stop',
      error: null,
      compactionFailures: script.outcome.compactionFailures,
      checkpointed: script.outcome.checkpointed,
    }),
  });
}

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

const inState = (actor: AnyActorRef, value: StateValue) =>
  waitFor(actor, (s: { matches(v: StateValue): boolean }) => s.matches(value), { timeout: 1000 });

const SESSION_INPUT: SessionInput = {
  sessionId: 's1',
  resumed: false,
  turnCount: 2,
  checkpointTurn: 0,
  limits: { maxRetries: 0, maxToolCallsPerTurn: 5, maxCompactionFailures: 3, checkpointInterval: 3 },
};

function sessionHarness(
  resumed = false,
  outcome: TurnScript['outcome'] = { compactionFailures: 0, checkpointed: false },
) {
  const log: string[] = [];
  const script: TurnScript = { inputs: [], outcome };
  const open = deferred();
  const close = deferred();
  const machine = sessionMachine.provide({
    actors: {
      openSession: fromPromise(async ({ input }) => {
        log.push(`open:${input.resumed}`);
        await open.promise;
      }),
      turn: fakeTurn(script) as never,
      closeSession: fromPromise(async ({ input }) => {
        log.push(`close:${input.reason}:${input.turnCount}`);
        await close.promise;
      }),
    },
    actions: {
      finishSession: (_, params) => void log.push(`finish:${params.reason}`),
      reportSessionError: (_, params) => void log.push(`error:${String(params.error)}`),
    },
  });
  const actor = createActor(machine, { input: { ...SESSION_INPUT, resumed } });
  actor.subscribe({ error: (e) => log.push(`actor error ${String(e)}`) });
  actor.start();
  // The children are typed as the real Turn machine; the stand-in also takes FINISH.
  const turn = () =>
    actor.getSnapshot().children.turn as unknown as
      { send(e: { type: string }): void; getSnapshot(): { value: unknown } } | undefined;
  const send = { turnId: 't' };
  return { actor, log, open, close, turn, send, script };
}

describe('Session machine', () => {
  it('opens, runs turns one at a time, and closes through the full path', async () => {
    const h = sessionHarness();
    expect(h.actor.getSnapshot().value).toEqual({ open: 'opening' });
    h.open.resolve();
    await inState(h.actor, { open: 'idle' });
    h.actor.send({ type: 'SEND', ...h.send });
    expect(h.actor.getSnapshot().value).toEqual({ open: 'running' });
    expect(h.actor.getSnapshot().context.turnCount).toBe(3);
    expect(h.actor.getSnapshot().context.activeTurnId).toBe('t');
    h.turn()!.send({ type: 'FINISH' });
    await inState(h.actor, { open: 'idle' });
    expect(h.actor.getSnapshot().context.activeTurnId).toBeNull();
    h.actor.send({ type: 'CLOSE' });
    expect(h.actor.getSnapshot().value).toBe('closing');
    h.close.resolve();
    await waitFor(h.actor, (s) => s.status === 'done');
    expect(h.log).toEqual(['open:false', 'close:close:3', 'finish:close']);
    expect(h.actor.getSnapshot().output).toEqual({ sessionId: 's1', reason: 'close' });
  });

  it('close() during a turn waits for the turn, then closes', async () => {
    const h = sessionHarness();
    h.open.resolve();
    await inState(h.actor, { open: 'idle' });
    h.actor.send({ type: 'SEND', ...h.send });
    h.actor.send({ type: 'CLOSE' });
    expect(h.actor.getSnapshot().value).toEqual({ open: 'running' });
    expect(h.turn()!.getSnapshot().value).toBe('running'); // not cancelled
    h.turn()!.send({ type: 'FINISH' });
    await inState(h.actor, 'closing');
  });

  it('SHUTDOWN cancels the running turn, then runs the full close path with reason shutdown', async () => {
    const h = sessionHarness();
    h.open.resolve();
    await inState(h.actor, { open: 'idle' });
    h.actor.send({ type: 'SEND', ...h.send });
    h.actor.send({ type: 'SHUTDOWN' });
    await inState(h.actor, 'closing');
    h.close.resolve();
    await waitFor(h.actor, (s) => s.status === 'done');
    expect(h.log).toEqual(['open:false', 'close:shutdown:3', 'finish:shutdown']);
  });

  it('DROP cancels the turn and ends without the close step (no hooks, no extraction)', async () => {
    const h = sessionHarness();
    h.open.resolve();
    await inState(h.actor, { open: 'idle' });
    h.actor.send({ type: 'SEND', ...h.send });
    h.actor.send({ type: 'DROP' });
    await waitFor(h.actor, (s) => s.status === 'done');
    expect(h.log).toEqual(['open:false', 'finish:drop']);
    expect(h.actor.getSnapshot().output).toEqual({ sessionId: 's1', reason: 'drop' });
  });

  it('a close asked for while opening runs once the session is open; a resumed session says so', async () => {
    const h = sessionHarness(true);
    h.actor.send({ type: 'CLOSE' });
    expect(h.actor.getSnapshot().value).toEqual({ open: 'opening' });
    h.open.resolve();
    await inState(h.actor, 'closing');
    expect(h.log[0]).toBe('open:true');
  });

  it('ignores SEND while running (the facade answers TURN_BUSY)', async () => {
    const h = sessionHarness();
    h.open.resolve();
    await inState(h.actor, { open: 'idle' });
    h.actor.send({ type: 'SEND', ...h.send });
    const first = h.turn();
    h.actor.send({ type: 'SEND', ...h.send });
    expect(h.turn()).toBe(first);
    expect(h.actor.getSnapshot().context.turnCount).toBe(3);
  });

  it('passes its counters into each turn and takes back what the turn changed', async () => {
    const h = sessionHarness(false, { compactionFailures: 2, checkpointed: true });
    h.open.resolve();
    await inState(h.actor, { open: 'idle' });
    h.actor.send({ type: 'SEND', turnId: 't3' });
    // Turn 3 is due: 3 turns since the checkpoint at turn 0, interval 3.
    expect(h.script.inputs[0]).toMatchObject({
      turnId: 't3',
      sessionId: 's1',
      maxRetries: 0,
      maxToolCallsPerTurn: 5,
      compactionFailures: 0,
      maxCompactionFailures: 3,
      checkpointDue: true,
    });
    h.turn()!.send({ type: 'FINISH' });
    await inState(h.actor, { open: 'idle' });
    expect(h.actor.getSnapshot().context).toMatchObject({ compactionFailures: 2, checkpointTurn: 3 });
    h.actor.send({ type: 'SEND', turnId: 't4' });
    expect(h.script.inputs[1]).toMatchObject({ turnId: 't4', compactionFailures: 2, checkpointDue: false });
  });
});

/** A session stand-in: ends on CLOSE or SHUTDOWN. */
const fakeSession = createMachine({
  id: 'session',
  initial: 'open',
  states: { open: { on: { CLOSE: 'closed', SHUTDOWN: 'closed' } }, closed: { type: 'final' } },
});

describe('Agent machine', () => {
  function agentHarness() {
    const log: string[] = [];
    const actor = createActor(
      agentMachine.provide({
        actors: {
          session: fakeSession as never,
          shutdownPlugins: fromPromise<void, void>(async () => void log.push('plugins shut down')),
        },
      }),
    );
    actor.subscribe({ error: (e) => log.push(`actor error ${String(e)}`) });
    actor.start();
    const open = (id: string) => actor.send({ type: 'OPEN', session: { ...SESSION_INPUT, sessionId: id } });
    return { actor, log, open };
  }

  it('holds one session at a time and frees the slot when it is done', async () => {
    const h = agentHarness();
    h.open('a');
    expect(h.actor.getSnapshot().value).toBe('sessionActive');
    expect(h.actor.getSnapshot().context.activeSessionId).toBe('a');
    h.open('b'); // ignored: the facade answers SESSION_BUSY
    expect(h.actor.getSnapshot().context.activeSessionId).toBe('a');
    h.actor.getSnapshot().children.session!.send({ type: 'CLOSE' });
    await inState(h.actor, 'ready');
    h.open('b');
    expect(h.actor.getSnapshot().context.activeSessionId).toBe('b');
  });

  it('SHUTDOWN closes the active session first, then shuts plugins down, then stops', async () => {
    const h = agentHarness();
    h.open('a');
    h.actor.send({ type: 'SHUTDOWN' });
    await waitFor(h.actor, (s) => s.status === 'done');
    expect(h.actor.getSnapshot().value).toBe('stopped');
    expect(h.log).toEqual(['plugins shut down']);
  });

  it('SHUTDOWN with no session goes straight to the plugins', async () => {
    const h = agentHarness();
    h.actor.send({ type: 'SHUTDOWN' });
    await waitFor(h.actor, (s) => s.status === 'done');
    expect(h.log).toEqual(['plugins shut down']);
  });
});
