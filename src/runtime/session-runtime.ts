/**
 * `SessionRuntime`: everything one session's actors work on — its history, event stream, write
 * queue, prompt cache, memories and the per-turn drafts. The machines never hold it: the actors
 * implemented in `src/actors/` reach it by session id through a closure (DESIGN.md §3 "side
 * channels reach actors through machine.provide closures"), so it never lands in a snapshot.
 * @module
 */
import type { Observable } from 'rxjs';
import type { ResolvedAgentConfig } from '../config.js';
import { ContextManager } from '../context/context-manager.js';
import type { AgentError } from '../errors.js';
import { EventHub } from '../events/event-hub.js';
import type { HookContext, HookDispatchOutcome, HookRegistry } from '../hooks/hook-registry.js';
import type { PluginManager } from '../plugins/plugin-manager.js';
import { nowIso } from '../ids.js';
import type { HookDataMap } from '../ports/plugin.js';
import type { ModelProvider } from '../ports/model-provider.js';
import type { MemoryStorage, SessionStorage } from '../ports/storage.js';
import type { ProviderDirectory } from '../providers/provider-directory.js';
import type { SkillManager } from '../skills/skill-manager.js';
import type { ToolDispatcher } from '../tools/tool-dispatcher.js';
import type { AgentEvent, HookEvent, Memory, Message, ModelInfo, TurnResult, UserInput } from '../types.js';
import { messageToEvent, type StoredSessionConfig } from '../persistence/replay.js';
import { PendingWrites } from '../persistence/pending-writes.js';

/** The agent-wide services every session shares (immutable after `build()`). */
export interface AgentServices {
  config: ResolvedAgentConfig;
  providers: ProviderDirectory;
  tools: ToolDispatcher;
  /** Characters of the tool specs' JSON, for token estimates (computed once). */
  toolSpecsChars: number;
  hooks: HookRegistry;
  skills: SkillManager;
  plugins: PluginManager;
  sessionStorage: SessionStorage | null;
  memoryStorage: MemoryStorage | null;
}

/** What a turn accumulates while streaming, outside the machine (it outlives the actor). */
export interface TurnDraft {
  text: string;
  reasoning: string;
  /** Whether any delta of the current response reached the event stream. */
  streamed: boolean;
}

/** One turn's side of the runtime. */
export interface TurnState {
  readonly id: string;
  readonly input: UserInput;
  readonly events: Observable<AgentEvent>;
  /** Aborted by `CANCEL` during a tool batch: calls not yet started are skipped. */
  readonly cancel: AbortController;
  /** Dynamic prompt sections from `turn_start`. */
  dynamicSections: string[];
  /** Environment context resolved for this turn (once). */
  environment: Record<string, string> | undefined | null;
  /** The system prompt of the next request. */
  systemPrompt: string;
  draft: TurnDraft;
  settle(result: TurnResult): void;
  readonly result: Promise<TurnResult>;
}

/** Per-session state and helpers used by the actors. */
export class SessionRuntime {
  readonly context: ContextManager;
  readonly hub: EventHub;
  readonly writes: PendingWrites;
  readonly turns = new Map<string, TurnState>();
  /** The turn in flight, if any. */
  get activeTurnId(): string | null {
    for (const id of this.turns.keys()) return id;
    return null;
  }
  /** Cached stable prompt; `null` after a compaction (rebuilt on the next request). */
  stablePrompt: string | null = null;
  memories: Memory[] = [];
  /** Turns since the last memory checkpoint. */
  checkpointCounter: number;
  /** Compaction failures in a row; the breaker opens at `maxConsecutiveFailures`. */
  compactionFailures = 0;
  compactionDisabled = false;
  /** Set once `close()`/`shutdown()`/a drop asked the session to end. */
  closing = false;
  /** Resolves when the Session machine reached `closed`. */
  readonly closed: Promise<void>;
  private resolveClosed!: () => void;

  constructor(
    readonly id: string,
    readonly services: AgentServices,
    readonly provider: ModelProvider,
    readonly model: ModelInfo,
    readonly sessionConfig: StoredSessionConfig,
    history: readonly Message[],
    turnCount: number,
  ) {
    this.context = new ContextManager(history);
    this.hub = new EventHub(id);
    // A failed write is reported on the turn it belongs to (writes are drained before a turn's
    // terminal event, so a turn's failures never arrive after it ended).
    this.writes = new PendingWrites(id, services.sessionStorage, (error) =>
      this.reportError(this.activeTurnId, error),
    );
    const interval = services.config.memory?.checkpointInterval ?? 1;
    this.checkpointCounter = turnCount % interval;
    this.closed = new Promise((resolve) => (this.resolveClosed = resolve));
  }

  /** The resolved model id. */
  get modelId(): string {
    return this.sessionConfig.modelId;
  }

  /** Appends a message to the history and hands it to the write queue (unless `persist` is false). */
  append(message: Message, persist = true): void {
    this.context.push(message);
    if (persist) this.writes.enqueue(messageToEvent(message, nowIso()));
  }

  /** Emits a non-fatal (or, for a turn's end, fatal) `error` event. */
  reportError(turnId: string | null, error: AgentError, fatal = false): void {
    this.hub.emit(turnId, { type: 'error', error: error.toJSON(), fatal });
  }

  /** Dispatches a hook; handler failures become non-fatal `error` events. */
  async hook<E extends HookEvent>(
    event: E,
    turnId: string | null,
    data: HookDataMap[E],
  ): Promise<HookDispatchOutcome<E>> {
    const ctx: HookContext = { sessionId: this.id, turnId };
    const outcome = await this.services.hooks.dispatch(event, ctx, data);
    for (const failure of outcome.failures) this.reportError(turnId, failure);
    return outcome;
  }

  /** Registers a new turn: its replay stream and its result promise. */
  beginTurn(id: string, input: UserInput): TurnState {
    let settle!: (result: TurnResult) => void;
    const result = new Promise<TurnResult>((resolve) => (settle = resolve));
    const turn: TurnState = {
      id,
      input,
      events: this.hub.openTurn(id),
      cancel: new AbortController(),
      dynamicSections: [],
      environment: null,
      systemPrompt: '',
      draft: { text: '', reasoning: '', streamed: false },
      settle,
      result,
    };
    this.turns.set(id, turn);
    return turn;
  }

  /** The state of a turn in flight. */
  turn(id: string): TurnState {
    const turn = this.turns.get(id);
    if (!turn) throw new Error(`unknown turn '${id}' in session '${this.id}'`);
    return turn;
  }

  /** Marks the session closed and completes its event stream (the Session machine's last act). */
  finish(): void {
    this.closing = true;
    this.hub.complete();
    this.resolveClosed();
  }
}
