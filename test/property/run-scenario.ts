/**
 * Plays a {@link Scenario} against real agents through the public API — sends, interrupts at the
 * planned moment, a second send while busy, close, shutdown, resume in the same or a new agent —
 * and checks every invariant on each `Session` object it used and on each agent it built.
 * @module
 */
import { lastValueFrom, toArray } from 'rxjs';
import { AgentError, type Agent, type RunningTurn, type Session } from '../../src/index.js';
import {
  checkHistory,
  checkResumed,
  checkSession,
  isTerminal,
  type SessionRecord,
  type TurnRecord,
} from './invariants.js';
import { predictTurn } from './oracle.js';
import {
  COUNTED_EVENT_TYPES,
  SKILL_NAME,
  type CountedEventType,
  type Scenario,
  type TurnPlan,
} from './scenario.js';
import { World, type LiveTurn, type WorldOptions } from './world.js';

/** What one run checked. */
export interface RunStats {
  turns: number;
  events: number;
  /** Turns per status. */
  outcomes: Record<'completed' | 'cancelled' | 'failed', number>;
  /** Interrupts whose moment came (a planned one may never come). */
  interrupts: number;
  /** Turns whose end was also checked against their script. */
  predicted: number;
  /** `context_compacted` events. */
  compactions: number;
}

const COUNTED: ReadonlySet<string> = new Set(COUNTED_EVENT_TYPES);
/** A 1×1 PNG, base64. */
const TINY_PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

/** Runs `scenario` (on the scripted model unless `options` say otherwise) and checks it; throws on the first broken invariant. */
export async function runScenario(scenario: Scenario, options?: WorldOptions): Promise<RunStats> {
  const driver = new Driver(new World(scenario, options));
  try {
    return await driver.run();
  } finally {
    await driver.dispose();
  }
}

class Driver {
  readonly stats: RunStats = {
    turns: 0,
    events: 0,
    outcomes: { completed: 0, cancelled: 0, failed: 0 },
    interrupts: 0,
    predicted: 0,
    compactions: 0,
  };
  /** Checks that settle later (a refused second send). */
  readonly #later: Promise<void>[] = [];
  #agent!: Agent;
  #record!: SessionRecord;
  /** Every Session object of the run, the last reader's included. */
  readonly #records: SessionRecord[] = [];
  /** The sequence of the latest event of the current Session object. */
  #lastSequence = 0;

  constructor(readonly world: World) {}

  async run(): Promise<RunStats> {
    this.#agent = await this.world.build();
    this.#record = this.#track(await this.#agent.newSession());
    for (const step of this.world.scenario.steps) {
      if (step.kind === 'turn') await this.#turn(step.plan);
      else await this.#reopen(step.via);
    }
    await this.#finish();
    return this.stats;
  }

  /** Follows a Session object's events; marks each turn ended at its terminal event. */
  #track(session: Session): SessionRecord {
    const record: SessionRecord = { session, events: [], completed: false, turns: [] };
    this.#records.push(record);
    this.#lastSequence = 0;
    session.events.subscribe({
      next: (event) => {
        record.events.push(event);
        this.#lastSequence = Math.max(this.#lastSequence, event.sequence);
        if (event.turnId !== null && isTerminal(event)) this.world.ended.add(event.turnId);
      },
      complete: () => (record.completed = true),
    });
    return record;
  }

  async #turn(plan: TurnPlan): Promise<void> {
    if (this.#record.completed) await this.#reopen('same_agent');
    const { world } = this;
    const { session } = this.#record;
    const { maxRetries, maxToolCallsPerTurn } = world.scenario;
    const prediction = predictTurn(plan, { maxRetries, maxToolCallsPerTurn }, world.hookCursor());
    const text = `${plan.text} (#${world.turnsByText.size + 1})`;
    const live: LiveTurn = {
      id: null,
      text,
      responses: [...plan.responses],
      callIds: [],
      requests: 0,
      armed: null,
      shown: 0,
      onShown: new Set(),
    };
    world.turnsByText.set(text, live);
    world.current = live;
    const before = session.messages.length;
    const interrupt = this.#arm(plan, live);

    const sending = session.sendMessage({
      content: [
        { type: 'text', text: plan.skill ? `/${SKILL_NAME} ${text}` : text },
        ...(plan.image ? [{ type: 'image' as const, data: TINY_PNG, mediaType: 'image/png' }] : []),
      ],
    });
    if (plan.busySend === 'right_away') this.#expectBusy(live);
    const turn = await sending;
    live.id = turn.id;
    interrupt.holding(turn);
    const subscription = this.#watch(turn, live);
    if (plan.interrupt?.at.kind === 'immediately') world.trip({ kind: 'immediately' });

    const result = await turn.result;
    await interrupt.settled();
    subscription.unsubscribe();
    const replay = await lastValueFrom(turn.events.pipe(toArray()));
    // A close waits for the turn, so the plan still says how it ends; a cancel or shutdown does
    // not, nor a hook trigger (the held hook does something else than planned).
    const fired = live.armed?.fired === true;
    const interrupted = fired && (plan.interrupt?.action !== 'close' || plan.interrupt.at.kind === 'hook');
    this.#record.turns.push({
      turn,
      result,
      replay,
      prediction: interrupted ? null : prediction,
      requests: live.requests,
      messages: session.messages.slice(before),
      cancelledAt: interrupt.cancelledAt,
    });
    const { stats } = this;
    stats.turns += 1;
    stats.outcomes[result.status] += 1;
    if (fired) stats.interrupts += 1;
    if (!interrupted) stats.predicted += 1;
    stats.compactions += replay.filter((e) => e.payload.type === 'context_compacted').length;
  }

  /**
   * Arms the plan's interrupt: at its moment, the second send (if planned there), then the
   * cancel, close or shutdown. A moment inside `sendMessage` (a `turn_start` hook) comes before
   * the user holds the turn: the act waits for it.
   */
  #arm(plan: TurnPlan, live: LiveTurn) {
    const { session } = this.#record;
    const agent = this.#agent;
    const ending: Promise<void>[] = [];
    let turn: RunningTurn | null = null;
    let deferred: (() => void) | null = null;
    let acted!: () => void;
    const done = new Promise<void>((resolve) => (acted = resolve));
    const state = {
      cancelledAt: null as TurnRecord['cancelledAt'],
      /** The user now holds the turn. */
      holding: (held: RunningTurn) => {
        turn = held;
        deferred?.();
      },
      /** Once the moment came, waits for the act (it may run a macrotask later) and what it started. */
      settled: async () => {
        if (live.armed?.fired) await done;
        await Promise.all(ending);
      },
    };
    const { interrupt } = plan;
    if (!interrupt) return state;
    const act = () => {
      if (plan.busySend === 'at_interrupt') this.#expectBusy(live);
      if (interrupt.action === 'cancel') {
        state.cancelledAt ??= { events: this.#lastSequence, requests: live.requests };
        turn!.cancel();
      } else if (interrupt.action === 'close') ending.push(session.close());
      else ending.push(agent.shutdown());
      acted();
    };
    live.armed = { interrupt, fired: false, fire: () => (turn ? act() : (deferred = act)) };
    return state;
  }

  /** Counts the turn's events for event moments and shown output (turn.events hears them first). */
  #watch(turn: RunningTurn, live: LiveTurn) {
    const counts = new Map<CountedEventType, number>();
    return turn.events.subscribe((event) => {
      this.#lastSequence = Math.max(this.#lastSequence, event.sequence);
      const { payload } = event;
      const delta = payload.type === 'text_delta' || payload.type === 'reasoning_delta';
      if (delta && payload.text !== '') live.shown += 1;
      if (delta || isTerminal(event)) live.onShown.forEach((listener) => listener());
      if (!COUNTED.has(payload.type) || isTerminal(event)) return;
      const type = payload.type as CountedEventType;
      const n = (counts.get(type) ?? 0) + 1;
      counts.set(type, n);
      this.world.trip({ kind: 'event', type, n });
    });
  }

  /** While the turn runs: a second send is `TURN_BUSY`, another session `SESSION_BUSY`. */
  #expectBusy(live: LiveTurn): void {
    if (live.id === null || !this.world.ended.has(live.id))
      this.#expectRefused(this.#record.session, 'TURN_BUSY');
    this.#refused(() => this.#agent.newSession(), 'newSession', 'SESSION_BUSY');
    this.#refused(() => this.#agent.resumeSession(this.#record.session.id), 'resumeSession', 'SESSION_BUSY');
  }

  /** A second `sendMessage` must be refused with `code`. */
  #expectRefused(session: Session, code: 'TURN_BUSY' | 'SESSION_CLOSED'): void {
    this.#refused(() => session.sendMessage('a second message'), 'sendMessage', code);
  }

  #refused(call: () => Promise<unknown>, name: string, code: string): void {
    this.#later.push(
      call().then(
        () => void this.world.violations.push(`a ${name} that should fail with ${code} succeeded`),
        (error: unknown) => {
          const got = AgentError.isInstance(error) ? error.code : String(error);
          if (got !== code) this.world.violations.push(`${name} failed with ${got}, expected ${code}`);
        },
      ),
    );
  }

  /** Closes the Session object, checks it, and reopens it from storage. */
  async #reopen(via: 'same_agent' | 'new_agent' | 'shutdown_during_close'): Promise<void> {
    const old = this.#record;
    const closing = old.session.close();
    // Closing refuses new turns at once, not only once closed.
    this.#expectRefused(old.session, 'SESSION_CLOSED');
    const overlapping = via === 'shutdown_during_close' ? this.#agent.shutdown() : null;
    await closing;
    await overlapping;
    this.#expectRefused(old.session, 'SESSION_CLOSED');
    this.stats.events += checkSession(old, this.world.turnEnds);
    const stopped = this.#agent.actor.getSnapshot().status !== 'active';
    if (via !== 'same_agent' || stopped) {
      await this.#agent.shutdown();
      checkStopped(this.#agent);
      this.#agent = await this.world.build();
    }
    const resumed = await this.#agent.resumeSession(old.session.id);
    checkResumed(resumed.messages, old.session.messages, 'after a resume');
    this.#record = this.#track(resumed);
  }

  /** Closes and shuts down, then checks what a fresh agent reads back and that nothing runs on. */
  async #finish(): Promise<void> {
    const { world } = this;
    const last = this.#record;
    await last.session.close();
    this.#expectRefused(last.session, 'SESSION_CLOSED');
    this.stats.events += checkSession(last, world.turnEnds);
    await this.#agent.shutdown();
    checkStopped(this.#agent);

    const reader = await world.build();
    const again = this.#track(await reader.resumeSession(last.session.id)).session;
    checkHistory(again.messages, 'resumed history');
    checkResumed(again.messages, last.session.messages, 'after the last shutdown');
    await reader.shutdown();
    checkStopped(reader);

    await Promise.all(this.#later);
    await this.#settle();
    const pending = world.clock.pendingDelays();
    if (pending.length > 0)
      throw new Error(`runtime timers still pending after shutdown: ${pending.join(', ')} ms`);
    if (world.timers.pending > 0) throw new Error(`${world.timers.pending} harness timers still pending`);
    const unreported = world.agents.flatMap((a) => a.unreportedErrors);
    const unexpected = unreported.find(
      (e) => e.code !== 'HOOK_FAILED' || !e.message.includes("plugin 'chaos'"),
    );
    if (unexpected) throw new Error(`agent.unreportedErrors holds an unexpected ${unexpected.message}`);
    // Every failure the chaos plugin caused is reported exactly once: on a session's events, or
    // (when the turn it belonged to had already ended) in agent.unreportedErrors.
    const onEvents = this.#records
      .flatMap((r) => r.events)
      .filter((e) => e.payload.type === 'error' && e.payload.error.message.includes("plugin 'chaos'")).length;
    if (onEvents + unreported.length !== world.hookFailuresCaused) {
      throw new Error(
        `the chaos plugin failed ${world.hookFailuresCaused} times, but ${onEvents} error events and ` +
          `${unreported.length} unreported errors say so`,
      );
    }
    if (world.violations.length > 0) throw new Error(world.violations.join('\n'));
  }

  /** Lets released holds and shortened waits run out (each takes a millisecond or two). */
  async #settle(): Promise<void> {
    for (let i = 0; i < 50; i++) {
      if (this.world.timers.pending === 0 && this.world.clock.pendingDelays().length === 0) return;
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
  }

  /** After a failed check: nothing of this run may outlive it. */
  async dispose(): Promise<void> {
    this.world.gates.releaseAll();
    await Promise.allSettled(this.world.agents.map((agent) => agent.shutdown()));
    await Promise.allSettled(this.#later);
    await this.#settle();
  }
}

/** The root actor ended in `stopped`. */
function checkStopped(agent: Agent): void {
  const snapshot = agent.actor.getSnapshot();
  if (snapshot.status !== 'done' || !snapshot.matches('stopped')) {
    throw new Error(
      `after shutdown the agent actor is ${snapshot.status} in ${JSON.stringify(snapshot.value)}`,
    );
  }
}
