import type { AgentError } from '../errors.js';
import type { ModelProvider } from './model-provider.js';
import type {
  AgentEvent,
  ChatEvent,
  ChatRequest,
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
  turn_end: { status: TurnResult['status']; usage: TokenUsage; error?: AgentError };
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
    /** The provider's id of the response and the model that answered, when it reported them. */
    responseId?: string;
    responseModel?: string;
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

/** A turn as a {@link RuntimeWatcher} sees it start. */
export interface WatchedTurn {
  sessionId: string;
  turnId: string;
  modelId: string;
  /** Whether it is a turn continued after a reload or on another instance (`continueTurn()`). */
  continued: boolean;
  /** Of a continued turn: the `traceparent` its first start stored (`turn_trace`), if any. */
  traceparent: string | null;
}

/** One model request (one attempt) as a {@link RuntimeWatcher} sees it start. */
export interface WatchedRequest {
  sessionId: string;
  /** The turn in flight, or `null` (memory extraction at the session's end). */
  turnId: string | null;
  provider: ModelProvider;
  /** The request as sent (read it, never change it). */
  request: ChatRequest;
}

/** What watches one model request: its stream's events, then its end. */
export interface RequestWatch {
  event?(event: ChatEvent): void;
  /** The stream ended: `error` is what it threw, `null` when it ended normally or was stopped. */
  end?(error: unknown): void;
}

/**
 * Watches an agent without changing it. Each callback runs synchronously where the thing
 * happens (in the async context of whoever caused it); what it throws is ignored. Without a
 * watcher the runtime pays nothing for this.
 * @example
 * ctx.watch({ event: (e) => e.payload.type === 'retry_scheduled' && retries.add(1) });
 */
export interface RuntimeWatcher {
  /**
   * A turn starts (new, or continued), before any of its steps runs. For a new turn, a
   * `traceparent` returned is stored with it (`metadata` `turn_trace`), so that its continuation
   * can link to it.
   */
  turnStarted?(turn: WatchedTurn): string | void;
  /** Every event of every session, as it is emitted. */
  event?(event: AgentEvent): void;
  /** A model request starts (turn, compaction and memory requests); return a watch to see it. */
  request?(request: WatchedRequest): RequestWatch | void;
}

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
