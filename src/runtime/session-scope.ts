/**
 * `SessionScope`: one session's owned parts — its history, event stream, pending writes and
 * prompt — plus the side channels of the turn in flight. The machines never hold it: the wiring
 * reaches it by session id and hands each step only the narrow scope that step declares, so no
 * service object enters machine input, context or snapshots.
 * @module
 */
import { approvalRulesFromEvents, type ApprovalRules } from '../approval/approval-records.js';
import { isoNow, type Clock } from '../clock.js';
import { ContextManager } from '../context/context-manager.js';
import type { ConversationView } from '../conversation/conversation-view.js';
import { conversationOfSession } from './session-conversation.js';
import type { AgentError } from '../errors.js';
import { EventHub } from '../events/event-hub.js';
import type { HookDispatchOutcome } from '../hooks/hook-registry.js';
import { addResponse, type UsageTotals } from '../conversation/usage-totals.js';
import { DraftCheckpoint } from '../persistence/draft-checkpoint.js';
import { PendingWrites } from '../persistence/pending-writes.js';
import type { LoadedInterruptedTurn } from '../persistence/resume.js';
import { storedUsageTotals, usageRecord } from '../persistence/usage-records.js';
import { messageToEvent, type StoredSessionConfig } from '../persistence/replay.js';
import type { HookDataMap } from '../ports/plugin.js';
import type { ModelProvider } from '../ports/model-provider.js';
import type { LiveLease } from '../ports/session-lock.js';
import { SessionPrompt, TurnPrompt } from '../prompt/session-prompt.js';
import {
  ZERO_USAGE,
  type HookEvent,
  type Message,
  type ModelInfo,
  type SessionEvent,
  type SessionEventPayload,
  type TokenUsage,
  type UserInput,
} from '../types.js';
import type { AgentServices } from './agent-services.js';
import { TurnRun, type TurnContinuation, type TurnOptions } from './turn-run.js';

/** Dispatches a hook for one turn (or for none); handler failures are already reported. */
export interface HookCaller {
  <E extends HookEvent>(event: E, data: HookDataMap[E]): Promise<HookDispatchOutcome<E>>;
  /** Whether any handler is registered for `event` (without one, a dispatch changes nothing). */
  has(event: HookEvent): boolean;
}

/** One session's parts. */
export class SessionScope {
  readonly history: ContextManager;
  readonly events: EventHub;
  readonly writes: PendingWrites;
  /** The streaming text's checkpoints (with a storage that keeps drafts). */
  readonly drafts: DraftCheckpoint;
  readonly prompt: SessionPrompt;
  /** The turn a reload cut off, until it is continued or discarded. */
  interrupted: LoadedInterruptedTurn | null = null;
  /** Tells the Session machine that another writer took the session over (set once it runs). */
  onLockLost: ((by: 'steal' | 'writer_replaced') => void) | null = null;
  /**
   * The session's lease, if it opened under one. One that can tell whether it is still held
   * (`isLive`) stops tool calls that have not started once it is not; one that records turns
   * (`markTurn`) is told when a turn begins and ends.
   */
  lease: Partial<LiveLease> | null = null;
  /** Whether this session still holds its lease (`true` when its lease cannot tell). */
  readonly holding = (): boolean => this.lease?.isLive?.() !== false;
  /** Called after writes of this session were stored (tells the other tabs). */
  onStored: (() => void) | null = null;
  /** The renderable conversation (`session.conversation`). */
  readonly conversation: ConversationView;
  /** The user's `always` answers, by tool: they hold for the session, resumed ones included. */
  readonly approvalRules: ApprovalRules;
  /** Resolves when the Session machine reached `closed`. */
  readonly closed: Promise<void>;
  #resolveClosed!: () => void;
  #turn: TurnRun | null = null;
  /** What every response of the session used, resumed ones included (from their stored records). */
  spent: UsageTotals;
  /** Whether this `Session` object reported `COST_UNKNOWN` (it does so once). */
  costUnknownReported = false;
  /** The session's model provider (as the plugins' watchers have it watched). */
  readonly provider: ModelProvider;
  /** What the plugins' watchers (`ctx.watch`) hand each provider to. */
  readonly #watches: ((provider: ModelProvider) => ModelProvider)[] = [];

  constructor(
    readonly id: string,
    readonly services: AgentServices,
    provider: ModelProvider,
    readonly model: ModelInfo,
    readonly sessionConfig: StoredSessionConfig,
    history: readonly Message[],
    /** Where failures go that no open turn or session stream can take. */
    private readonly reportLate: (error: AgentError) => void,
    /** A resumed session's stored events (its conversation shows them all). */
    stored: readonly SessionEvent[] = [],
  ) {
    const { config } = services;
    this.history = new ContextManager(history);
    this.events = new EventHub(id, services.clock);
    // A failed write is reported on the turn it belongs to: writes are drained before a turn's
    // terminal event, so a turn's failures never arrive after it ended.
    this.writes = new PendingWrites(
      id,
      services.sessionStorage,
      (error) => this.report(this.#turn?.id ?? null, error),
      {
        timeoutMs: config.storageTimeoutMs,
        clock: services.clock,
        onWriterReplaced: () => this.onLockLost?.('writer_replaced'),
        onStored: () => this.onStored?.(),
      },
    );
    this.drafts = new DraftCheckpoint(id, services.sessionStorage, {
      clock: services.clock,
      timeoutMs: config.storageTimeoutMs,
      onError: (error) => this.report(this.#turn?.id ?? null, error),
    });
    this.prompt = new SessionPrompt(() => ({
      systemInstructions: config.systemInstructions,
      ...(sessionConfig.systemPromptOverride !== undefined && {
        systemPromptOverride: sessionConfig.systemPromptOverride,
      }),
      ...(config.personality !== undefined && { personality: config.personality }),
      skills: services.skills.implicitSkills(),
      plugins: services.plugins.descriptors(),
    }));
    this.closed = new Promise((resolve) => (this.#resolveClosed = resolve));
    this.spent = storedUsageTotals(stored);
    // Before the conversation subscribes: a usage record is queued as its response is reported.
    this.events.emitted.subscribe((event) => {
      if (event.payload.type === 'usage')
        this.#countUsage(event.turnId, event.payload.usage, event.payload.cost);
    });
    this.conversation = conversationOfSession(this, stored);
    this.approvalRules = approvalRulesFromEvents(stored);
    // Last: a watcher may record at once.
    for (const watcher of services.plugins.watchers) {
      try {
        const watch = watcher({
          id,
          modelId: sessionConfig.modelId,
          events: this.events.emitted,
          stored,
          record: (key, value) => this.record({ type: 'metadata', key, value }),
        });
        if (watch) this.#watches.push(watch);
      } catch {
        // A watcher that fails does not watch: watching never changes what the session does.
      }
    }
    this.provider = this.watched(provider);
  }

  /** The resolved model id. */
  get modelId(): string {
    return this.sessionConfig.modelId;
  }

  /** The agent's clock. */
  get clock(): Clock {
    return this.services.clock;
  }

  /** `provider` as the plugins' watchers have it watched (as it is, without any). */
  watched(provider: ModelProvider): ModelProvider {
    for (const watch of this.#watches) provider = watch(provider);
    return provider;
  }

  /** Appends a message to the history and hands it to storage (unless `persist` is false). */
  append(message: Message, persist = true): void {
    this.history.push(message);
    if (persist) this.writes.enqueue(messageToEvent(message, isoNow(this.clock)));
    this.conversation.appended(message);
  }

  /** Hands a record that is not a message (metadata) to storage. */
  record(payload: SessionEventPayload): void {
    this.writes.enqueue({ timestamp: isoNow(this.clock), payload });
  }

  /**
   * Emits an `error` event: non-fatal, or the fatal terminal one of a turn. A report for a turn
   * that already ended (from a step a cancel stopped) goes to `agent.unreportedErrors` instead.
   */
  report(turnId: string | null, error: AgentError, fatal = false): void {
    if (turnId !== null && !this.events.isOpen(turnId)) return this.reportLate(error);
    this.events.emit(turnId, { type: 'error', error: error.toJSON(), fatal });
  }

  /** A hook caller for `turnId` (`null`: outside a turn) that reports handler failures. */
  hooks(turnId: string | null): HookCaller {
    const registry = this.services.hooks;
    const ctx = { sessionId: this.id, turnId };
    const call = <E extends HookEvent>(event: E, data: HookDataMap[E]) => {
      // No handler, no failures to report: the settled outcome as it is, with no await on top
      // (two hooks per request, most often with no handler).
      if (!registry.has(event)) return registry.dispatch(event, ctx, data);
      return registry.dispatch(event, ctx, data).then((outcome) => {
        for (const failure of outcome.failures) this.report(turnId, failure);
        return outcome;
      });
    };
    return Object.assign(call, { has: (event: HookEvent) => registry.has(event) });
  }

  /**
   * Counts one response's usage in the session's (and its turn's) spending and stores it, so
   * budgets and totals survive a reload.
   */
  #countUsage(turnId: string | null, usage: TokenUsage, cost: number | undefined): void {
    this.spent = addResponse(this.spent, usage, cost);
    const turn = this.#turn;
    if (turn !== null && turn.id === turnId) turn.spent = addResponse(turn.spent, usage, cost);
    this.record(usageRecord(turnId, usage, cost));
  }

  /**
   * Opens the side channels of a turn (the Session machine allows one at a time): a new one with
   * the user's input, or the continuation of the interrupted one.
   */
  beginTurn(
    id: string,
    input: UserInput | null,
    continuation: TurnContinuation | null,
    options: TurnOptions,
  ): TurnRun {
    const prompt = new TurnPrompt(this.prompt, this.services.config.environmentContext, (error) =>
      this.report(id, error),
    );
    this.#turn = new TurnRun(id, input, this.events.openTurn(id), prompt, continuation, options);
    // A continued turn is the same turn: what it spent before the reload counts in its budget.
    if (continuation !== null && this.interrupted?.turnId === id) this.#turn.spent = this.interrupted.spent;
    this.conversation.turnStarted(id, this.#turn.result);
    this.lease?.markTurn?.(id);
    return this.#turn;
  }

  /** The side channels of the turn in flight; a step of any other turn is a bug. */
  turn(id: string): TurnRun {
    if (this.#turn?.id !== id) throw new Error(`turn '${id}' is not in flight in session '${this.id}'`);
    return this.#turn;
  }

  /** Closes a turn's side channels after its terminal event. */
  endTurn(id: string): void {
    this.events.closeTurn(id);
    if (this.#turn?.id === id) {
      this.#turn = null;
      this.lease?.markTurn?.(null);
    }
  }

  /**
   * Reports a failure outside any step's own handling. When a turn is in flight (its machine
   * crashed), the error becomes its fatal terminal event and its result; otherwise it is a
   * session-level error event.
   */
  abandonTurn(error: AgentError): void {
    const turn = this.#turn;
    if (!turn) return this.report(null, error);
    try {
      this.report(turn.id, error, true);
    } finally {
      // Even when the event stream is what broke, the turn ends and its result settles.
      this.endTurn(turn.id);
      turn.settle({ status: 'failed', usage: ZERO_USAGE, cost: turn.spent.cost, error });
    }
  }

  /** Another writer has the session now: say so once, and write nothing more. */
  loseLock(by: 'steal' | 'writer_replaced'): void {
    this.writes.halt();
    this.drafts.halt();
    this.events.emit(null, { type: 'session_lock_lost', by });
  }

  /** Completes the session's event stream (the Session machine's last act). */
  finish(): void {
    this.events.complete();
    this.#resolveClosed();
  }
}
