import type { AgentError } from '../errors.js';
import type { ModelProvider } from './model-provider.js';
import type { Observable } from 'rxjs';
import type {
  AgentEvent,
  ChatRequest,
  SessionEvent,
  HookEvent,
  HookPayload,
  HookResult,
  SessionConfig,
  TokenUsage,
  ToolOutput,
  TurnResult,
} from '../types.js';

/**
 * What `data` holds for each hook event (the hook table in `docs/hooks-and-plugins.md` says what `continue_with`
 * and `abort` do for each).
 */
export interface HookDataMap {
  session_start: { sessionId: string; config: SessionConfig };
  session_end: { reason: 'close' | 'shutdown'; turnCount: number };
  /** Dynamic prompt sections; starts `[]`. `continue_with` replaces the array. */
  turn_start: string[];
  /** `error`: what failed the turn (status `failed`). */
  turn_end: { status: TurnResult['status']; usage: TokenUsage; error?: AgentError | undefined };
  before_tool_use: { callId: string; toolName: string; arguments: unknown };
  after_tool_use: {
    callId: string;
    toolName: string;
    arguments: unknown;
    output: ToolOutput;
    durationMs: number;
  };
  before_compact: { strategy: 'summary'; tokensBefore: number; messageCount: number };
  pre_request: { request: ChatRequest; attempt: number };
  post_request: {
    usage: TokenUsage | null;
    finishReason: string;
    durationMs: number;
    attempt: number;
    /** The provider's id of the response and the model that answered, as it reported them on `done`. */
    responseId?: string | undefined;
    responseModel?: string | undefined;
  };
  on_retry: { attempt: number; delayMs: number; error: AgentError };
  on_error: { error: AgentError };
}

/** The payload a handler of event `E` receives. */
export type HookPayloadOf<E extends HookEvent> = Omit<HookPayload, 'event' | 'data'> & {
  event: E;
  data: HookDataMap[E];
};

/** A hook handler: `undefined` means continue. Bounded by `AgentConfig.hookTimeoutMs`. */
export type HookHandler<E extends HookEvent = HookEvent> = (
  payload: HookPayloadOf<E>,
) => HookResult | void | Promise<HookResult | void>;

/** Given to `Plugin.apply`: registers hook handlers on behalf of the plugin. */
export interface PluginContext {
  /** The plugin's id. */
  readonly pluginId: string;
  /** The config the plugin was registered with. */
  readonly pluginConfig: unknown;
  /** Registers `handler` for `event`; plugin id and config are injected into each payload. */
  tap<E extends HookEvent>(event: E, handler: HookHandler<E>): void;
  /** Watches every session of the agent (tracing, metrics): see {@link RuntimeWatcher}. */
  watch(watcher: RuntimeWatcher): void;
}

/** One session as a {@link RuntimeWatcher} sees it. */
export interface WatchedSession {
  readonly id: string;
  /** The session's model (its turns' requests ask for it). */
  readonly modelId: string;
  /** Every event of the session, as it is emitted (it completes when the session closes). */
  readonly events: Observable<AgentEvent>;
  /** A resumed session's stored events (its `metadata` records among them); `[]` for a new one. */
  readonly stored: readonly SessionEvent[];
  /** Stores a `metadata` record with the session's events (a resume finds it in `stored`). */
  record(key: string, value: unknown): void;
}

/**
 * Watches the sessions of an agent without changing them (tracing, metrics): called once as
 * each session opens, before any of its turns. It may return a function that the session hands
 * each provider it uses (its model's; a memory model's) and uses what it returns instead: a
 * provider that passes every request and stream on unchanged, to see each model request.
 * Without a watcher the runtime pays nothing for this.
 * @example
 * ctx.watch((session) => void session.events.subscribe((e) => e.payload.type === 'retry_scheduled' && retries.add(1)));
 */
export type RuntimeWatcher = (session: WatchedSession) => ((provider: ModelProvider) => ModelProvider) | void;

/**
 * A plugin: named hooks with a lifecycle. `initialize` runs at `build()` (in registration
 * order), `apply` registers hooks, `shutdown` runs at `agent.shutdown()` in reverse order.
 */
export interface Plugin {
  /** Unique id. */
  id: string;
  displayName: string;
  /** Listed in the system prompt's plugin section. */
  description: string;
  initialize?(config: unknown): Promise<void> | void;
  apply(ctx: PluginContext): void;
  shutdown?(): Promise<void> | void;
}
