/**
 * The model of a property run as plain data: what the scripted model answers, what the tools and
 * hooks do, and what the user does to the session (sends, cancels at chosen moments, a second
 * send while busy, close, shutdown, resume). fast-check generates and shrinks these values; the
 * harness plays them against a real agent.
 * @module
 */
import type { HookEvent } from '../../src/index.js';

/** The registered tools: one read-only, one mutating; the third name is never registered. */
export const READ_TOOL = 'read_note';
export const WRITE_TOOL = 'write_note';
export const UNKNOWN_TOOL = 'no_such_tool';
export type ToolName = typeof READ_TOOL | typeof WRITE_TOOL | typeof UNKNOWN_TOOL;

/**
 * What a tool does when it runs, chosen by the model in the call's arguments: return, return a
 * long output (it fills a small context window), return an error output, throw, hold until the
 * harness releases it, or hang until its time limit.
 */
export const TOOL_MODES = ['ok', 'long', 'error', 'throw', 'hold', 'hang'] as const;
export type ToolMode = (typeof TOOL_MODES)[number];

/** One tool call of a scripted response. */
export interface CallSpec {
  tool: ToolName;
  mode: ToolMode;
  /** Valid arguments, arguments that are not JSON, or JSON the tool's schema refuses. */
  args: 'valid' | 'invalid_json' | 'wrong_schema';
  /** Reuse the call id of the turn's previous call (a model that repeats ids). */
  repeatId: boolean;
}

/** How a scripted response ends. `at` counts the items streamed before the ending. */
export type Ending =
  | { kind: 'done'; finishReason: 'stop' | 'length' | 'content_filter' }
  /** Throws: a retryable or fatal `AgentError`, or a plain `Error` (a foreign failure). */
  | { kind: 'throw'; error: 'retryable' | 'fatal' | 'foreign'; at: number }
  /** Everything but the finish reason: the stream just stops (a retryable failure). */
  | { kind: 'no_finish' }
  /** A malformed event (not a `ChatEvent`): a fatal provider failure. */
  | { kind: 'malformed'; at: number };

/** One scripted model response, streamed in this order: reasoning, text, calls, usage, done. */
export interface ResponseSpec {
  reasoning: string | null;
  /** Text deltas; an empty one is not output. */
  text: string[];
  calls: CallSpec[];
  usage: { inputTokens: number; outputTokens: number } | null;
  /** A pause inserted before item `at`: a `wait` the harness releases, or a short `delay`. */
  stall: { at: number; kind: 'wait' | 'delay' } | null;
  ending: Ending;
}

/** Hook events fired inside a turn (the ones a cancel can land in). */
export const TURN_HOOK_EVENTS = [
  'turn_start',
  'before_compact',
  'pre_request',
  'post_request',
  'on_retry',
  'before_tool_use',
  'after_tool_use',
  'on_error',
  'turn_end',
] as const satisfies readonly HookEvent[];
export type TurnHookEvent = (typeof TURN_HOOK_EVENTS)[number];

/** Event types a trigger can count. */
export const COUNTED_EVENT_TYPES = [
  'text_delta',
  'reasoning_delta',
  'tool_call_start',
  'tool_call_end',
  'usage',
  'retry_scheduled',
  'error',
] as const;
export type CountedEventType = (typeof COUNTED_EVENT_TYPES)[number];

/** The moment an interrupt happens. */
export type TriggerPoint =
  | { kind: 'immediately' }
  /** On the n-th event of this type in the turn (n from 1). */
  | { kind: 'event'; type: CountedEventType; n: number }
  /** While the model's stream is held by a `wait`. */
  | { kind: 'stall' }
  /** While a tool runs (it is held until after the interrupt). */
  | { kind: 'tool' }
  /** While the turn waits to retry a failed request. */
  | { kind: 'retry_wait' }
  /**
   * While a handler of this hook runs: it is held until after the interrupt, then does `then`
   * (in place of its planned act) — so a hook can fail or abort after the turn it ran for ended.
   */
  | { kind: 'hook'; event: TurnHookEvent; then: HookAct };

/** What the user does at the trigger: cancel the turn, close the session, shut the agent down. */
export interface Interrupt {
  action: 'cancel' | 'close' | 'shutdown';
  at: TriggerPoint;
  /** Straight from the callback that saw the moment, or a microtask or a macrotask later. */
  timing: 'sync' | 'microtask' | 'macrotask';
}

/** The registered skill a message can invoke with `/notes`. */
export const SKILL_NAME = 'notes';

/** One user message and what happens around it. */
export interface TurnPlan {
  text: string;
  /** The message invokes the skill (its text is injected before the message). */
  skill: boolean;
  /** The message carries an image besides its text. */
  image: boolean;
  /** The model's responses to this turn's requests, in order; then a plain answer. */
  responses: ResponseSpec[];
  interrupt: Interrupt | null;
  /** A second `sendMessage` while the turn runs: right after the first, or at the interrupt. */
  busySend: 'none' | 'right_away' | 'at_interrupt';
}

/**
 * A step of the run: a turn, or closing the session and reopening it from storage — in the same
 * agent, in a new one, or in a new one after a shutdown that overlaps the close.
 */
export type Step =
  | { kind: 'turn'; plan: TurnPlan }
  | { kind: 'resume'; via: 'same_agent' | 'new_agent' | 'shutdown_during_close' };

/**
 * What a hook handler does: nothing, return data, throw, return something that is not a
 * HookResult, hold until released, never settle (until the hook time limit), or abort.
 */
export const HOOK_ACTS = [
  'continue',
  'continue_with',
  'throw',
  'invalid',
  'stall',
  'timeout',
  'abort',
] as const;
export type HookAct = (typeof HOOK_ACTS)[number];

/** A whole run. */
export interface Scenario {
  maxRetries: number;
  maxToolCallsPerTurn: number;
  /** Memory checkpoint every this many turns; `null`: memory off. */
  checkpointInterval: number | null;
  /** What the model answers to a memory extraction. */
  memoryAnswer: 'valid' | 'invalid' | 'throw';
  /** Saves settle a macrotask late (still in call order). */
  slowStorage: boolean;
  /** The model's context window: large (no compaction) or small (long tool outputs compact it). */
  contextWindow: 'large' | 'small';
  /** What the model answers to a summary compaction. */
  compactionAnswer: 'ok' | 'throw';
  /** Per hook event, the acts of its successive calls (cycled); absent: always continue. */
  hooks: Partial<Record<HookEvent, HookAct[]>>;
  /** What the chaos plugin's `shutdown()` does. */
  pluginShutdown: 'ok' | 'throw' | 'hang';
  steps: Step[];
}
