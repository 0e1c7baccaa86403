/**
 * The world of one property run: the agent's parts built from a {@link Scenario} (on the
 * scripted model, or another provider the run gives), the run's clock, timers and gates, and the
 * seams that let the harness act at a chosen moment — on an event, in a stalled stream, in a
 * running tool, in a hook, in a retry wait. It also records what must never happen: a request or
 * a hook call for a turn that has already ended, a request with an aborted signal, a request
 * whose history leaves a call unanswered.
 * @module
 */
import {
  AgentBuilder,
  InMemoryMemoryStorage,
  InMemorySessionStorage,
  type Agent,
  type ChatRequest,
  type HookEvent,
  type ModelInfo,
  type ModelProvider,
  type SessionStorage,
} from '../../src/index.js';
import { SCRIPTED_MODEL } from '../../src/testing/index.js';
import { chaosPlugin, noteTool, probePlugin, scriptedProvider, slowStorage } from './agent-parts.js';
import { pairingProblem } from './invariants.js';
import {
  Gates,
  HarnessTimers,
  HOOK_TIMEOUT_MS,
  RETRY_WAIT_MS,
  TOOL_TIMEOUT_MS,
  TrackingClock,
} from './instruments.js';
import type { HookCursor } from './oracle.js';
import {
  READ_TOOL,
  SKILL_NAME,
  WRITE_TOOL,
  type Interrupt,
  type ResponseSpec,
  type Scenario,
  type TriggerPoint,
} from './scenario.js';
import { FALLBACK, type ScriptContext } from './scripts.js';

/** A window small enough that a few long tool outputs make the runtime compact. */
const SMALL_CONTEXT_WINDOW = 2_500;

/** How a run differs from the default one on the scripted model. */
export interface WorldOptions {
  /** The model provider (default: the scripted one), built once per run. */
  provider?: (world: World) => ModelProvider;
  /** Extra agent settings. */
  config?: Record<string, unknown>;
}

/** An interrupt waiting for its moment in the running turn. */
export interface Armed {
  interrupt: Interrupt;
  fire: () => void;
  fired: boolean;
}

/** The turn the harness is driving. */
export interface LiveTurn {
  id: string | null;
  /** The user's message, unique in the run (a server finds the turn of a request by it). */
  text: string;
  responses: ResponseSpec[];
  callIds: string[];
  /** Model requests made for it (`purpose: 'turn'`). */
  requests: number;
  armed: Armed | null;
  /** Text and reasoning deltas the turn has emitted so far. */
  shown: number;
  /** Called after each of them, and once the turn has ended. */
  readonly onShown: Set<() => void>;
}

export class World {
  readonly clock = new TrackingClock(new Map([[RETRY_WAIT_MS, 1]]));
  readonly timers = new HarnessTimers();
  readonly gates = new Gates();
  readonly storage: SessionStorage;
  readonly memory: InMemoryMemoryStorage | null;
  readonly provider: ModelProvider;
  /** The one model the run's provider serves. */
  readonly model: ModelInfo;
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
  /** Hook (and plugin shutdown) failures the chaos plugin caused on purpose. */
  hookFailuresCaused = 0;
  current: LiveTurn | null = null;
  /** Every turn of the run by its message. */
  readonly turnsByText = new Map<string, LiveTurn>();
  #callIds = 0;

  readonly #config: Record<string, unknown>;

  constructor(
    readonly scenario: Scenario,
    options: WorldOptions = {},
  ) {
    this.#config = options.config ?? {};
    const inner = new InMemorySessionStorage();
    this.storage = scenario.slowStorage ? slowStorage(inner, this.timers) : inner;
    this.memory = scenario.checkpointInterval === null ? null : new InMemoryMemoryStorage();
    this.model = {
      ...SCRIPTED_MODEL,
      contextWindow: scenario.contextWindow === 'small' ? SMALL_CONTEXT_WINDOW : SCRIPTED_MODEL.contextWindow,
    };
    this.provider = this.#checked((options.provider ?? scriptedProvider)(this));
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
      // In a small window, micro-compaction clears all but the latest tool result.
      ...(scenario.contextWindow === 'small' && { compaction: { keepRecentToolResults: 1 } }),
      ...this.#config,
      ...(scenario.checkpointInterval !== null && {
        memory: { namespace: 'property', checkpointInterval: scenario.checkpointInterval },
      }),
    })
      .registerModelProvider(this.provider)
      .registerTool(noteTool(this, READ_TOOL, false))
      .registerTool(noteTool(this, WRITE_TOOL, true))
      .registerSkill({
        name: SKILL_NAME,
        description: 'How to keep notes',
        prompt: 'Keep every note to one line.',
      })
      .registerSessionStorage(this.storage)
      .registerPlugin(probePlugin(this))
      .registerPlugin(chaosPlugin(this));
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
  holdIfTripped(point: TriggerPoint): Promise<void> | null {
    if (!this.trip(point)) return null;
    const hold = this.gates.hold();
    this.timers.later(hold.release);
    return hold.promise;
  }

  /** A hold that is released a macrotask later. */
  briefHold(): Promise<void> {
    const hold = this.gates.hold();
    this.timers.later(hold.release);
    return hold.promise;
  }

  /** Wraps the run's provider so every request is checked before it goes out. */
  #checked(provider: ModelProvider): ModelProvider {
    return {
      id: provider.id,
      models: provider.models,
      chat: (request, signal) => {
        this.#checkRequest(request, signal);
        return provider.chat(request, signal);
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

  /**
   * The running turn's next planned response (then the plain answer), with what rendering it
   * needs: call ids, a watched stall, the server wait a retryable failure asks for.
   */
  nextResponse(turn: LiveTurn | null = this.current): { spec: ResponseSpec; ctx: ScriptContext } {
    const spec = turn?.responses.shift() ?? FALLBACK;
    const retryWait = turn?.armed?.interrupt.at.kind === 'retry_wait';
    const ctx: ScriptContext = {
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
    };
    return { spec, ctx };
  }
}

function samePoint(a: TriggerPoint, b: TriggerPoint): boolean {
  if (a.kind !== b.kind) return false;
  if (a.kind === 'event' && b.kind === 'event') return a.type === b.type && a.n === b.n;
  if (a.kind === 'hook' && b.kind === 'hook') return a.event === b.event;
  return true;
}
