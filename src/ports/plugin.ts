import type { AgentError } from '../errors.js';
import type {
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
  turn_end: { status: TurnResult['status']; usage: TokenUsage };
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
