/**
 * The world of one scripted property run: the agent's parts (scripted model, tools, plugins,
 * storage, clock) built from a {@link Scenario}, and the hooks into it that let the harness act
 * at a chosen moment — on an event, in a stalled stream, in a running tool, in a hook, in a retry
 * wait. It also records what must never happen (a request or a hook call for a turn that has
 * already ended, a request with an aborted signal, a history with an unanswered call on the wire).
 * @module
 */
import * as z from 'zod/mini';
import {
  AgentBuilder,
  AgentError,
  defineTool,
  HookResult,
  InMemoryMemoryStorage,
  InMemorySessionStorage,
  type Agent,
  type ChatRequest,
  type HookEvent,
  type HookHandler,
  type HookPayload,
  type ModelProvider,
  type Plugin,
  type SessionStorage,
} from '../../src/index.js';
import {
  reply,
  ScriptedModelProvider,
  SCRIPTED_MODEL,
  type ScriptedResponse,
} from '../../src/testing/index.js';
import { pairingProblem } from './invariants.js';
import { Gates, HarnessTimers, TrackingClock } from './instruments.js';
import type { HookCursor } from './oracle.js';
import {
  READ_TOOL,
  TOOL_MODES,
  TURN_HOOK_EVENTS,
  WRITE_TOOL,
  type HookAct,
  type Interrupt,
  type ResponseSpec,
  type Scenario,
  type TriggerPoint,
  type TurnHookEvent,
} from './scenario.js';
import { FALLBACK, responseItems } from './scripts.js';

/** Time limits long enough never to fire by themselves; the clock expires them on purpose. */
export const HOOK_TIMEOUT_MS = 50_000;
export const TOOL_TIMEOUT_MS = 40_000;
/** The server wait a failure asks for when the run wants to act during the retry wait (1 ms real). */
export const RETRY_WAIT_MS = 45_000;

/** An interrupt waiting for its moment in the running turn. */
export interface Armed {
  interrupt: Interrupt;
  fire: () => void;
  fired: boolean;
}

/** The turn the harness is driving. */
export interface LiveTurn {
  id: string | null;
  responses: ResponseSpec[];
  callIds: string[];
  /** Model requests made for it (`purpose: 'turn'`). */
  requests: number;
  armed: Armed | null;
}

const TURN_HOOKS: ReadonlySet<string> = new Set(TURN_HOOK_EVENTS);

export class World {
  readonly clock = new TrackingClock(new Map([[RETRY_WAIT_MS, 1]]));
  readonly timers = new HarnessTimers();
  readonly gates = new Gates();
  readonly storage: SessionStorage;
  readonly memory: InMemoryMemoryStorage | null;
  readonly provider: ModelProvider;
  /** What must never happen, as it happened. */
  readonly violations: string[] = [];
  /** Every agent built, in order. */
  readonly agents: Agent[] = [];
  /** `turn_end` statuses per turn id, as the probe plugin saw them. */
  readonly turnEnds = new Map<string, string[]>();
  /** Turns whose terminal event has been seen. */
  readonly ended = new Set<string>();
  /** Calls to the chaos plugin per hook event. */
  readonly hookCalls: Partial<Record<HookEvent, number>> = {};
  /** Hook failures the run caused on purpose (they may reach `agent.unreportedErrors`). */
  expectedLateFailures = 0;
  current: LiveTurn | null = null;
  #callIds = 0;

  constructor(readonly scenario: Scenario) {
    const inner = new InMemorySessionStorage();
    this.storage = scenario.slowStorage ? slowStorage(inner, this.timers) : inner;
    this.memory = scenario.checkpointInterval === null ? null : new InMemoryMemoryStorage();
    this.provider = this.#provider();
    this.clock.onTimer = (ms) => {
      // Acting inside the runtime's own setTimeout call is not a moment a user has: act after it.
      if (ms === RETRY_WAIT_MS) queueMicrotask(() => this.trip({ kind: 'retry_wait' }));
    };
  }

  /** A new agent on the run's storage, provider and plugins. */
  async build(): Promise<Agent> {
    const { scenario } = this;
    let builder = new AgentBuilder({
      defaultModel: SCRIPTED_MODEL.id,
      hookTimeoutMs: HOOK_TIMEOUT_MS,
      toolTimeoutMs: TOOL_TIMEOUT_MS,
      maxToolCallsPerTurn: scenario.maxToolCallsPerTurn,
      retry: { maxRetries: scenario.maxRetries, initialDelayMs: 0, maxDelayMs: 60_000 },
      clock: this.clock,
      ...(scenario.checkpointInterval !== null && {
        memory: { namespace: 'property', checkpointInterval: scenario.checkpointInterval },
      }),
    })
      .registerModelProvider(this.provider)
      .registerTool(this.#tool(READ_TOOL, false))
      .registerTool(this.#tool(WRITE_TOOL, true))
      .registerSessionStorage(this.storage)
      .registerPlugin(this.#probe())
      .registerPlugin(this.#chaos());
    if (this.memory) builder = builder.registerMemoryStorage(this.memory);
    const agent = await builder.build();
    this.agents.push(agent);
    return agent;
  }

  /** Where the oracle reads the hooks' next acts. */
  hookCursor(): HookCursor {
    return { acts: this.scenario.hooks, calls: { ...this.hookCalls } };
  }

  /** Fires the armed interrupt if `point` is its moment; says whether it did. */
  trip(point: TriggerPoint): boolean {
    const armed = this.current?.armed;
    if (!armed || armed.fired || !samePoint(armed.interrupt.at, point)) return false;
    armed.fired = true;
    const { timing } = armed.interrupt;
    if (timing === 'sync') armed.fire();
    else if (timing === 'microtask') queueMicrotask(armed.fire);
    else this.timers.later(armed.fire);
    return true;
  }

  /** When `point` fires the interrupt: a hold released a macrotask after it, so it lands inside. */
  #holdIfTripped(point: TriggerPoint): Promise<void> | null {
    if (!this.trip(point)) return null;
    const hold = this.gates.hold();
    this.timers.later(hold.release);
    return hold.promise;
  }

  /** A hold that is released a macrotask later. */
  #briefHold(): Promise<void> {
    const hold = this.gates.hold();
    this.timers.later(hold.release);
    return hold.promise;
  }

  /** The scripted model, answering from the running turn's plan. */
  #provider(): ModelProvider {
    const scripted = new ScriptedModelProvider();
    const step = (request: ChatRequest): ScriptedResponse => {
      scripted.enqueue(step); // always one step ready: the plan decides the answer, not the queue
      return this.#respond(request);
    };
    scripted.enqueue(step);
    return {
      id: scripted.id,
      models: scripted.models,
      chat: (request, signal) => {
        this.#checkRequest(request, signal);
        return scripted.chat(request, signal);
      },
    };
  }

  #checkRequest(request: ChatRequest, signal: AbortSignal): void {
    if (signal.aborted) this.violations.push(`a ${request.purpose} request was made with an aborted signal`);
    if (request.purpose !== 'turn') return;
    const turn = this.current;
    if (!turn || (turn.id !== null && this.ended.has(turn.id))) {
      this.violations.push('a model request was made for a turn that had already ended');
    }
    if (turn) turn.requests += 1;
    const problem = pairingProblem(request.messages);
    if (problem) this.violations.push(`a request carried an invalid history: ${problem}`);
  }

  #respond(request: ChatRequest): ScriptedResponse {
    if (request.purpose === 'memory_extraction' || request.purpose === 'memory_consolidation') {
      switch (this.scenario.memoryAnswer) {
        case 'valid':
          return reply.text('{"memories":[{"content":"The user keeps notes."}]}');
        case 'invalid':
          return reply.text('no JSON here');
        case 'throw':
          return reply.error(new AgentError('PROVIDER_ERROR', 'memory model down', { retryable: true }));
      }
    }
    if (request.purpose !== 'turn') return reply.text('A summary.');
    const turn = this.current;
    const spec = turn?.responses.shift() ?? FALLBACK;
    const retryWait = turn?.armed?.interrupt.at.kind === 'retry_wait';
    return responseItems(spec, {
      newCallId: () => {
        const id = `call_${++this.#callIds}`;
        turn?.callIds.push(id);
        return id;
      },
      lastCallId: () => turn?.callIds.at(-1) ?? null,
      stall: () => {
        const gate = this.gates.watched(() => {
          this.trip({ kind: 'stall' });
          this.timers.later(gate.release);
        });
        return gate.promise;
      },
      retryAfterMs: retryWait ? RETRY_WAIT_MS : 0,
    });
  }

  #tool(name: string, mutating: boolean) {
    return defineTool({
      name,
      description: `${name}: a note tool whose behaviour the call chooses`,
      parameters: z.object({ text: z.string(), mode: z.enum(TOOL_MODES) }),
      mutating,
      execute: async ({ arguments: { mode }, signal }) => {
        const held = this.#holdIfTripped({ kind: 'tool' });
        if (held) await held;
        switch (mode) {
          case 'ok':
            return `${name} done`;
          case 'error':
            return { content: `${name} could not do it`, isError: true };
          case 'throw':
            throw new Error(`${name} broke`);
          case 'hold':
            await this.#briefHold();
            return `${name} done after a while`;
          case 'hang':
            // Never returns by itself: its time limit ends it (now, not in 40 s).
            this.clock.hurryAll(TOOL_TIMEOUT_MS);
            await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
            return 'too late';
        }
      },
    });
  }

  /** Registered first, so it sees every `turn_end` whatever the chaos plugin does. */
  #probe(): Plugin {
    return {
      id: 'probe',
      displayName: 'Probe',
      description: 'Counts turn ends for the property suite',
      apply: (ctx) => {
        ctx.tap('turn_end', ({ turnId, data }) => {
          if (turnId === null) this.violations.push('turn_end fired without a turn id');
          else this.turnEnds.set(turnId, [...(this.turnEnds.get(turnId) ?? []), data.status]);
        });
      },
    };
  }

  /** Does what the scenario says on every hook, and lets the harness act while a hook runs. */
  #chaos(): Plugin {
    const events = new Set<HookEvent>([
      ...TURN_HOOK_EVENTS,
      ...(Object.keys(this.scenario.hooks) as HookEvent[]),
    ]);
    return {
      id: 'chaos',
      displayName: 'Chaos',
      description: 'Misbehaves on purpose for the property suite',
      apply: (ctx) => {
        for (const event of events) {
          const handler = (payload: HookPayload) => this.#onHook(event, payload);
          ctx.tap(event, handler as HookHandler);
        }
      },
      shutdown: () => {
        switch (this.scenario.pluginShutdown) {
          case 'ok':
            return;
          case 'throw':
            this.expectedLateFailures += 1;
            throw new Error('chaos shutdown broke');
          case 'hang':
            this.expectedLateFailures += 1;
            this.clock.expireNext(HOOK_TIMEOUT_MS);
            return new Promise<void>(() => {});
        }
      },
    };
  }

  /** Synchronous on purpose: a hook's time limit starts when the handler returns. */
  #onHook(event: HookEvent, payload: HookPayload): unknown {
    const index = this.hookCalls[event] ?? 0;
    this.hookCalls[event] = index + 1;
    if (payload.turnId !== null && this.ended.has(payload.turnId)) {
      this.violations.push(`a ${event} hook ran for a turn that had already ended`);
    }
    const acts = this.scenario.hooks[event];
    const planned: HookAct = acts?.[index % acts.length] ?? 'continue';
    const trigger = this.current?.armed?.interrupt.at;
    const held =
      TURN_HOOKS.has(event) && payload.turnId !== null && trigger?.kind === 'hook'
        ? this.#holdIfTripped({ ...trigger, event: event as TurnHookEvent })
        : null;
    // The held call does what the trigger says; `trip` matched it, so `trigger` is a hook trigger.
    const act = held && trigger?.kind === 'hook' ? trigger.then : planned;
    if (['throw', 'invalid', 'timeout'].includes(act)) this.expectedLateFailures += 1;
    if (!held) return this.#act(act, event, payload, () => this.clock.expireNext(HOOK_TIMEOUT_MS));
    return held.then(() => this.#act(act, event, payload, () => this.clock.hurryAll(HOOK_TIMEOUT_MS)));
  }

  #act(act: HookAct, event: HookEvent, payload: HookPayload, expire: () => void): unknown {
    switch (act) {
      case 'continue':
        return undefined;
      case 'continue_with':
        return HookResult.continueWith(
          event === 'turn_start'
            ? [...(payload.data as string[]), 'A section from the chaos plugin.']
            : payload.data,
        );
      case 'throw':
        throw new Error(`chaos ${event} broke`);
      case 'invalid':
        return { type: 'nonsense' };
      case 'stall':
        return this.#briefHold();
      case 'timeout':
        expire();
        return new Promise(() => {});
      case 'abort':
        return HookResult.abort('the chaos plugin says no');
    }
  }
}

function samePoint(a: TriggerPoint, b: TriggerPoint): boolean {
  if (a.kind !== b.kind) return false;
  if (a.kind === 'event' && b.kind === 'event') return a.type === b.type && a.n === b.n;
  if (a.kind === 'hook' && b.kind === 'hook') return a.event === b.event;
  return true;
}

/** A storage whose saves settle a macrotask late, still stored in call order. */
function slowStorage(inner: SessionStorage, timers: HarnessTimers): SessionStorage {
  return {
    saveEvent: async (id, event) => {
      const saved = inner.saveEvent(id, event);
      await timers.sleep();
      await saved;
    },
    loadSession: (id) => inner.loadSession(id),
    listSessions: (cursor, limit) => inner.listSessions(cursor, limit),
    findSessions: (query) => inner.findSessions(query),
    deleteSession: (id) => inner.deleteSession(id),
  };
}
