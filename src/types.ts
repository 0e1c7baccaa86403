/**
 * The runtime's values: every type of the public contract as a `zod/mini` schema
 * with its inferred type beside it. The library validates with `zod/mini` (≈4 kB gzipped instead
 * of classic zod's ≈92 kB); both flavours share zod 4's core, so user schemas may use either.
 *
 * This file is a deliberate single home for the contract's values, and so longer than the rest:
 * one place to read everything that crosses a boundary, in the order a reader meets it.
 *
 * Each module-scope schema is built inside an arrow call marked `@__PURE__`: to a bundler, zod's
 * builders and `.check()` are calls that may have effects, so without the mark an app would ship
 * every schema here, used or not.
 * @module
 */
import * as z from 'zod/mini';
import type { AgentError } from './errors.js';
import { isoTimestamp } from './iso-timestamp.js';

const nonNegativeInt = () => z.number().check(z.int(), z.minimum(0));

/** All error codes an {@link AgentError} can carry. */
export const AGENT_ERROR_CODES = [
  'NO_MODEL_PROVIDER',
  'NAME_CONFLICT',
  'SKILL_DEPENDENCY_NOT_MET',
  'PLUGIN_INIT_FAILED',
  'STORAGE_DUPLICATE',
  'INVALID_DEFAULT_MODEL',
  'SESSION_BUSY',
  'TURN_BUSY',
  'MODEL_NOT_SUPPORTED',
  'PROVIDER_ERROR',
  'TOOL_EXECUTION_ERROR',
  'TOOL_TIMEOUT',
  'TOOL_NOT_FOUND',
  'SKILL_NOT_FOUND',
  'SESSION_NOT_FOUND',
  'STORAGE_ERROR',
  'MAX_TOOL_CALLS_EXCEEDED',
  'COMPACT_ERROR',
  'REQUEST_CANCELLED',
  'INVALID_INPUT',
  'REQUEST_BLOCKED',
  'SESSION_CLOSED',
  'HOOK_FAILED',
  'MEMORY_FAILED',
  'INTERNAL_ERROR',
  'SESSION_LOCKED',
  'SESSION_WRITER_REPLACED',
  'APPROVAL_PENDING',
  'APPROVAL_NOT_PENDING',
  'OUTPUT_INVALID',
  'BUDGET_EXCEEDED',
  'COST_UNKNOWN',
  'TOOL_SOURCE_UNAVAILABLE',
] as const;
/** Schema of {@link AgentErrorCode}. */
export const AgentErrorCodeSchema = /* @__PURE__ */ (() => z.enum(AGENT_ERROR_CODES))();
/** A machine-readable error code, e.g. `'TURN_BUSY'`. */
export type AgentErrorCode = z.infer<typeof AgentErrorCodeSchema>;

/** Which component an error came from. */
export const ErrorSourceSchema = /* @__PURE__ */ (() =>
  z.enum(['provider', 'tool', 'plugin', 'storage', 'agent']))();
/** Which component an error came from. */
export type ErrorSource = z.infer<typeof ErrorSourceSchema>;

// ─── Content and messages ─────────────────────────────────────────────────────────────────

/** Schema of {@link ContentBlock}. */
export const ContentBlockSchema = /* @__PURE__ */ (() =>
  z.discriminatedUnion('type', [
    z.strictObject({ type: z.literal('text'), text: z.string() }),
    z.strictObject({
      type: z.literal('image'),
      /** Base64 data, without a `data:` prefix. */
      data: z.string().check(z.minLength(1)),
      /** e.g. `image/png`. */
      mediaType: z.string().check(z.regex(/^image\/[\w.+-]+$/)),
    }),
  ]))();
/** One piece of user or assistant content: text, or a base64 image. */
export type ContentBlock = z.infer<typeof ContentBlockSchema>;

/** Schema of {@link UserInput}: at least one block. */
export const UserInputSchema = /* @__PURE__ */ (() =>
  z.strictObject({
    content: z.array(ContentBlockSchema).check(z.minLength(1)),
  }))();
/** What a user sends in one turn (text and images). `sendMessage` also accepts a plain string. */
export type UserInput = z.infer<typeof UserInputSchema>;

/** Schema of {@link MessageStatus}. */
export const MessageStatusSchema = /* @__PURE__ */ (() => z.enum(['complete', 'incomplete']))();
/** `incomplete`: the assistant message was cut short (cancel, or a failure after output). */
export type MessageStatus = z.infer<typeof MessageStatusSchema>;

/** Schema of {@link ProviderItems}. */
export const ProviderItemsSchema = /* @__PURE__ */ (() =>
  z.strictObject({
    provider: z.string(),
    model: z.string(),
    // Read-only to its users (the items are the server's, sent back as they are); checked as a list.
    items: z.array(z.unknown()) as unknown as z.ZodMiniType<readonly unknown[]>,
  }))();
/**
 * A provider's own record of one response (e.g. the Responses API's output items, reasoning
 * included), opaque to the runtime: stored with the assistant message so that the provider can
 * send it back exactly. Only the provider `provider` uses it, and only for model `model`.
 */
export type ProviderItems = z.infer<typeof ProviderItemsSchema>;

// The fields each message kind carries; the stored session events reuse them (same shapes).
const userFields = /* @__PURE__ */ (() => ({ content: z.array(ContentBlockSchema) }))();
const assistantFields = /* @__PURE__ */ (() => ({
  content: z.array(ContentBlockSchema),
  status: MessageStatusSchema,
  providerItems: z.optional(ProviderItemsSchema),
}))();
const toolCallFields = /* @__PURE__ */ (() => ({
  callId: z.string(),
  toolName: z.string(),
  /** Parsed JSON arguments, or the raw string when the model sent invalid JSON. */
  arguments: z.unknown(),
}))();
const toolResultFields = /* @__PURE__ */ (() => ({
  callId: z.string(),
  content: z.string(),
  isError: z.boolean(),
}))();
const systemFields = /* @__PURE__ */ (() => ({ content: z.string() }))();

/** Schema of {@link Message}. */
export const MessageSchema = /* @__PURE__ */ (() =>
  z.discriminatedUnion('type', [
    z.strictObject({ type: z.literal('user'), ...userFields }),
    z.strictObject({ type: z.literal('assistant'), ...assistantFields }),
    z.strictObject({ type: z.literal('tool_call'), ...toolCallFields }),
    z.strictObject({ type: z.literal('tool_result'), ...toolResultFields }),
    z.strictObject({ type: z.literal('system'), ...systemFields }),
  ]))();
/** One entry of a session's context history. */
export type Message = z.infer<typeof MessageSchema>;

// ─── Usage ───────────────────────────────────────────────────────────────────────────────

/** Schema of {@link TokenUsage}. */
export const TokenUsageSchema = /* @__PURE__ */ (() =>
  z.strictObject({
    inputTokens: nonNegativeInt(),
    outputTokens: nonNegativeInt(),
    cachedInputTokens: z.optional(nonNegativeInt()),
    reasoningTokens: z.optional(nonNegativeInt()),
    totalTokens: nonNegativeInt(),
  }))();
/** Token counts of one model response, or summed over a turn. */
export type TokenUsage = z.infer<typeof TokenUsageSchema>;

/** No tokens: the usage of a turn before its first response. */
export const ZERO_USAGE: TokenUsage = Object.freeze({ inputTokens: 0, outputTokens: 0, totalTokens: 0 });

/**
 * Adds two usages; the optional counters stay absent unless either side has them.
 * @example
 * addUsage({ inputTokens: 1, outputTokens: 2, totalTokens: 3 }, null); // the first, unchanged
 */
export function addUsage(a: TokenUsage, b: TokenUsage | null): TokenUsage {
  if (!b) return a;
  const sum: TokenUsage = {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    totalTokens: a.totalTokens + b.totalTokens,
  };
  if (a.cachedInputTokens !== undefined || b.cachedInputTokens !== undefined)
    sum.cachedInputTokens = (a.cachedInputTokens ?? 0) + (b.cachedInputTokens ?? 0);
  if (a.reasoningTokens !== undefined || b.reasoningTokens !== undefined)
    sum.reasoningTokens = (a.reasoningTokens ?? 0) + (b.reasoningTokens ?? 0);
  return sum;
}

// ─── Tools ───────────────────────────────────────────────────────────────────────────────

/** Schema of {@link ToolOutput}. */
export const ToolOutputSchema = /* @__PURE__ */ (() =>
  z.strictObject({
    content: z.string(),
    isError: z.optional(z.boolean()),
    metadata: z.optional(z.unknown()),
  }))();
/** What a tool returns; `content` is what the model reads. */
export type ToolOutput = z.infer<typeof ToolOutputSchema>;

/** A JSON Schema object, as sent to models for tool parameters. */
export type JsonSchema = { [key: string]: unknown };

/** Schema of {@link ToolSpec}. */
export const ToolSpecSchema = /* @__PURE__ */ (() =>
  z.strictObject({
    name: z.string(),
    description: z.string(),
    parameters: z.record(z.string(), z.unknown()),
  }))();
/** A tool as the model sees it (name, description, JSON Schema of the arguments). */
export type ToolSpec = { name: string; description: string; parameters: JsonSchema };

/**
 * The reserved tool a turn that asks for structured output offers the model: its parameters are
 * the answer's schema, and calling it gives the answer. A registered tool may not take the name.
 */
export const FINAL_ANSWER_TOOL = 'final_answer';

/** One tool call the model asked for, as a turn's pending call (machine context holds these). */
export interface ToolCallRequest extends ToolCallRef {
  /** Raw JSON text, as the model produced it. */
  arguments: string;
}

/**
 * Which call of a response: what the Turn machine keeps of a pending tool call. Its arguments stay
 * out of machine context (snapshots and the inspector never hold the conversation).
 */
export interface ToolCallRef {
  callId: string;
  toolName: string;
}

// ─── Models ──────────────────────────────────────────────────────────────────────────────

/** Schema of {@link ModelPricing}. */
export const ModelPricingSchema = /* @__PURE__ */ (() =>
  z.strictObject({
    inputPerMillion: z.number().check(z.minimum(0)),
    cachedInputPerMillion: z.optional(z.number().check(z.minimum(0))),
    outputPerMillion: z.number().check(z.minimum(0)),
  }))();
/** Prices in USD per million tokens. */
export type ModelPricing = z.infer<typeof ModelPricingSchema>;

/** Schema of {@link ModelInfo}. */
export const ModelInfoSchema = /* @__PURE__ */ (() =>
  z.strictObject({
    id: z.string().check(z.minLength(1)),
    displayName: z.string(),
    contextWindow: z.number().check(z.int(), z.minimum(1)),
    capabilities: z.strictObject({
      toolUse: z.boolean(),
      vision: z.boolean(),
      streaming: z.boolean(),
    }),
    pricing: z.optional(ModelPricingSchema),
  }))();
/** A model a provider serves. */
export type ModelInfo = z.infer<typeof ModelInfoSchema>;

/** Schema of {@link ChatPurpose}. */
export const ChatPurposeSchema = /* @__PURE__ */ (() =>
  z.enum(['turn', 'compaction', 'memory_extraction', 'memory_consolidation']))();
/** Why the runtime calls the model. */
export type ChatPurpose = z.infer<typeof ChatPurposeSchema>;

/** Schema of {@link ChatRequest}. */
export const ChatRequestSchema = /* @__PURE__ */ (() =>
  z.strictObject({
    model: z.string(),
    systemPrompt: z.string(),
    messages: z.array(MessageSchema),
    tools: z.array(ToolSpecSchema),
    maxOutputTokens: z.optional(z.number().check(z.int(), z.minimum(1))),
    purpose: ChatPurposeSchema,
  }))();
/** One request to a {@link ModelProvider}. */
export type ChatRequest = {
  model: string;
  systemPrompt: string;
  messages: Message[];
  tools: ToolSpec[];
  maxOutputTokens?: number;
  purpose: ChatPurpose;
};

/** Schema of {@link ChatEvent}. */
export const ChatEventSchema = /* @__PURE__ */ (() =>
  z.discriminatedUnion('type', [
    z.strictObject({ type: z.literal('text_delta'), text: z.string() }),
    z.strictObject({ type: z.literal('reasoning_delta'), text: z.string() }),
    z.strictObject({
      type: z.literal('tool_call'),
      callId: z.string(),
      toolName: z.string(),
      /** Raw JSON text, exactly as the model produced it. */
      arguments: z.string(),
    }),
    z.strictObject({
      type: z.literal('usage'),
      usage: TokenUsageSchema,
      cost: z.optional(z.number()),
    }),
    z.strictObject({ type: z.literal('done'), finishReason: z.string() }),
    // Optional: the response's own items, stored on its assistant message (`providerItems`).
    z.strictObject({ type: z.literal('response_items'), ...ProviderItemsSchema.def.shape }),
    // Optional: a piece of a tool call's arguments as it streams (the complete `tool_call` follows).
    z.strictObject({
      type: z.literal('tool_call_delta'),
      index: nonNegativeInt(),
      callId: z.optional(z.string()),
      toolName: z.optional(z.string()),
      argumentsDelta: z.string(),
    }),
  ]))();
/** One event of a provider's stream. A tool call arrives whole; `done` ends the response. */
export type ChatEvent = z.infer<typeof ChatEventSchema>;

// ─── Skills and memory ───────────────────────────────────────────────────────────────────

/** Schema of {@link SkillDefinition}. */
export const SkillDefinitionSchema = /* @__PURE__ */ (() =>
  z.strictObject({
    name: z.string().check(z.regex(/^\w+$/)),
    description: z.string(),
    prompt: z.string(),
    requiredTools: z.optional(z.array(z.string())),
    /** Listed in the system prompt so the model may use it unasked. Default `true`. */
    allowImplicitInvocation: z.optional(z.boolean()),
  }))();
/** A skill: a prompt injected when the user types `/name`. */
export type SkillDefinition = z.infer<typeof SkillDefinitionSchema>;

/** Schema of {@link Memory}. */
export const MemorySchema = /* @__PURE__ */ (() =>
  z.strictObject({
    id: z.string().check(z.minLength(1)),
    namespace: z.string().check(z.minLength(1)),
    content: z.string(),
    createdAt: isoTimestamp(),
    updatedAt: isoTimestamp(),
    sourceSessionId: z.optional(z.string()),
    tags: z.optional(z.array(z.string())),
  }))();
/** A long-term memory, kept across sessions in a namespace. */
export type Memory = z.infer<typeof MemorySchema>;

// ─── Sessions ────────────────────────────────────────────────────────────────────────────

/** Schema of {@link SessionConfig}. */
export const SessionConfigSchema = /* @__PURE__ */ (() =>
  z.strictObject({
    /** Model to use; defaults to `AgentConfig.defaultModel`. */
    modelId: z.optional(z.string().check(z.minLength(1))),
    /** Appended after the system instructions. */
    systemPromptOverride: z.optional(z.string()),
  }))();
/** Options of one session. */
export type SessionConfig = z.infer<typeof SessionConfigSchema>;

/** Schema of {@link SessionEventPayload}. */
export const SessionEventPayloadSchema = /* @__PURE__ */ (() =>
  z.discriminatedUnion('type', [
    z.strictObject({ type: z.literal('user_message'), ...userFields }),
    z.strictObject({ type: z.literal('assistant_message'), ...assistantFields }),
    z.strictObject({ type: z.literal('tool_call'), ...toolCallFields }),
    z.strictObject({ type: z.literal('tool_result'), ...toolResultFields }),
    z.strictObject({ type: z.literal('system_message'), ...systemFields }),
    z.strictObject({ type: z.literal('metadata'), key: z.string(), value: z.unknown() }),
  ]))();
/** What one persisted session event says. */
export type SessionEventPayload = z.infer<typeof SessionEventPayloadSchema>;

/** Schema of {@link SessionEvent}. */
export const SessionEventSchema = /* @__PURE__ */ (() =>
  z.strictObject({
    timestamp: isoTimestamp(),
    payload: SessionEventPayloadSchema,
  }))();
/** One persisted record of a session (a message, or metadata). */
export type SessionEvent = z.infer<typeof SessionEventSchema>;

/** Schema of {@link SessionSummary}. */
export const SessionSummarySchema = /* @__PURE__ */ (() =>
  z.strictObject({
    id: z.string(),
    title: z.string(),
    modelId: z.string(),
    createdAt: isoTimestamp(),
    updatedAt: isoTimestamp(),
    turnCount: nonNegativeInt(),
    eventCount: nonNegativeInt(),
  }))();
/** A stored session as listed by a {@link SessionStorage}. */
export type SessionSummary = z.infer<typeof SessionSummarySchema>;

/** Schema of {@link SessionPage}. */
export const SessionPageSchema = /* @__PURE__ */ (() =>
  z.strictObject({
    sessions: z.array(SessionSummarySchema),
    nextCursor: z.nullable(z.string()),
  }))();
/** One page of sessions; `nextCursor` is `null` iff nothing follows. */
export type SessionPage = z.infer<typeof SessionPageSchema>;

// ─── Agent events ────────────────────────────────────────────────────────────────────────

/** Schema of {@link AgentErrorData}. */
export const AgentErrorDataSchema = /* @__PURE__ */ (() =>
  z.strictObject({
    code: AgentErrorCodeSchema,
    message: z.string(),
    retryable: z.boolean(),
    source: ErrorSourceSchema,
  }))();
/** An {@link AgentError} as plain data, as it travels in `error` events. */
export type AgentErrorData = z.infer<typeof AgentErrorDataSchema>;

/** Schema of {@link AgentEventPayload}. */
export const AgentEventPayloadSchema = /* @__PURE__ */ (() =>
  z.discriminatedUnion('type', [
    z.strictObject({ type: z.literal('text_delta'), text: z.string() }),
    z.strictObject({ type: z.literal('reasoning_delta'), text: z.string() }),
    z.strictObject({
      type: z.literal('tool_call_start'),
      callId: z.string(),
      toolName: z.string(),
      arguments: z.unknown(),
    }),
    z.strictObject({
      type: z.literal('tool_call_end'),
      callId: z.string(),
      toolName: z.string(),
      output: ToolOutputSchema,
      durationMs: z.number().check(z.minimum(0)),
      success: z.boolean(),
    }),
    z.strictObject({ type: z.literal('usage'), usage: TokenUsageSchema, cost: z.optional(z.number()) }),
    z.strictObject({
      type: z.literal('context_compacted'),
      tokensBefore: nonNegativeInt(),
      tokensAfter: nonNegativeInt(),
      strategy: z.enum(['micro', 'summary']),
    }),
    z.strictObject({
      type: z.literal('turn_complete'),
      usage: TokenUsageSchema,
      finishReason: z.string(),
    }),
    z.strictObject({ type: z.literal('turn_cancelled') }),
    z.strictObject({ type: z.literal('error'), error: AgentErrorDataSchema, fatal: z.boolean() }),
    // A failed attempt that will be retried: one event with the wait in it, instead of an error.
    z.strictObject({
      type: z.literal('retry_scheduled'),
      /** The attempt that failed (1 for the first), as in `on_retry`. */
      attempt: z.number().check(z.int(), z.minimum(1)),
      /** The wait before the next attempt, in ms. */
      delayMs: z.number().check(z.minimum(0)),
      error: AgentErrorDataSchema,
    }),
    // Another tab (or Agent) took this session over; the session cancels its turn and closes.
    z.strictObject({ type: z.literal('session_lock_lost'), by: z.enum(['steal', 'writer_replaced']) }),
    // The first event of a turn continued after a reload (`session.continueTurn()`).
    z.strictObject({
      type: z.literal('turn_resumed'),
      reason: z.enum(['awaiting_approval', 'awaiting_model', 'tools_unfinished']),
    }),
    z.strictObject({
      type: z.literal('approval_requested'),
      callId: z.string(),
      toolName: z.string(),
      arguments: z.unknown(),
    }),
    z.strictObject({
      type: z.literal('approval_resolved'),
      callId: z.string(),
      approved: z.boolean(),
      reason: z.optional(z.string()),
      by: z.enum(['user', 'policy', 'timeout', 'cancel']),
    }),
    // Structured output: the partial object so far, then the validated output.
    z.strictObject({ type: z.literal('output_delta'), partial: z.unknown() }),
    z.strictObject({ type: z.literal('output'), output: z.unknown() }),
  ]))();
/** What happened: a delta, a tool call, usage, compaction, or the turn's end. */
export type AgentEventPayload = z.infer<typeof AgentEventPayloadSchema>;

/** Schema of {@link AgentEvent}. */
export const AgentEventSchema = /* @__PURE__ */ (() =>
  z.strictObject({
    sessionId: z.string(),
    /** `null` for events outside a turn (memory extraction at close, session-level errors). */
    turnId: z.nullable(z.string()),
    timestamp: isoTimestamp(),
    /** Starts at 1 for each `Session` object; +1 per event, across turns. */
    sequence: z.number().check(z.int(), z.minimum(1)),
    payload: AgentEventPayloadSchema,
  }))();
/** One event on a session's stream. */
export type AgentEvent = z.infer<typeof AgentEventSchema>;

/** The payload types that end a turn: exactly one of them ends every turn. */
export type TerminalPayload =
  | Extract<AgentEventPayload, { type: 'turn_complete' | 'turn_cancelled' }>
  | (Extract<AgentEventPayload, { type: 'error' }> & { fatal: true });

// ─── Hooks ───────────────────────────────────────────────────────────────────────────────

/** Every hook event, in lifecycle order. */
export const HOOK_EVENTS = [
  'session_start',
  'session_end',
  'turn_start',
  'turn_end',
  'before_tool_use',
  'after_tool_use',
  'before_compact',
  'pre_request',
  'post_request',
  'on_retry',
  'on_error',
] as const;
/** Schema of {@link HookEvent}. */
export const HookEventSchema = /* @__PURE__ */ (() => z.enum(HOOK_EVENTS))();
/** A point of the lifecycle where plugins may observe or intervene. */
export type HookEvent = z.infer<typeof HookEventSchema>;

/** Schema of {@link HookPayload}. */
export const HookPayloadSchema = /* @__PURE__ */ (() =>
  z.strictObject({
    event: HookEventSchema,
    sessionId: z.string(),
    turnId: z.nullable(z.string()),
    /** The config the plugin was registered with. */
    pluginConfig: z.unknown(),
    /** Event-specific data: see the hook table in `docs/hooks-and-plugins.md`. */
    data: z.unknown(),
    timestamp: isoTimestamp(),
  }))();
/** What a hook handler receives. */
export type HookPayload = z.infer<typeof HookPayloadSchema>;

/** Schema of {@link HookResult}. */
export const HookResultSchema = /* @__PURE__ */ (() =>
  z.discriminatedUnion('type', [
    z.strictObject({ type: z.literal('continue') }),
    z.strictObject({ type: z.literal('continue_with'), data: z.unknown() }),
    z.strictObject({ type: z.literal('abort'), reason: z.string() }),
  ]))();
/** What a hook handler returns: go on, go on with new data, or stop. `undefined` means continue. */
export type HookResult = z.infer<typeof HookResultSchema>;

/**
 * Constructors for {@link HookResult}.
 * @example
 * ctx.tap('pre_request', ({ data }) => HookResult.abort('offline'));
 */
export const HookResult = /* @__PURE__ */ (() =>
  ({
    /** Go on unchanged. */
    continue: (): HookResult => ({ type: 'continue' }),
    /** Go on with `data` replacing the payload's data (the next handler sees it). */
    continueWith: (data: unknown): HookResult => ({ type: 'continue_with', data }),
    /** Stop the chain; what that means depends on the event (see the hook table). */
    abort: (reason: string): HookResult => ({ type: 'abort', reason }),
  }) as const)();

/**
 * The final outcome of a turn, as `turn.result` resolves it; `T` is the structured answer's type
 * when the turn asked for one (`sendMessage(input, { output: { schema } })`).
 */
export interface TurnResult<T = unknown> {
  status: 'completed' | 'cancelled' | 'failed';
  usage: TokenUsage;
  /**
   * USD of the turn's responses (compaction included): a server-reported cost where there is one,
   * else the model's pricing; `null` when no response had either.
   */
  cost: number | null;
  /** The validated structured answer: set iff the turn asked for one and completed with it. */
  output?: T;
  /** Set when `status` is `failed`. */
  error?: AgentError;
}

/** A tool call waiting for a human decision (`turn.approve` / `turn.deny`). */
export interface PendingApproval {
  callId: string;
  toolName: string;
  /** The validated arguments. */
  arguments: unknown;
  /** ISO 8601: when the approval was requested. */
  requestedAt: string;
}

/** A call of an interrupted turn that has no result yet. */
export interface UnfinishedToolCall {
  callId: string;
  toolName: string;
  /** The tool is registered as `mutating`. */
  mutating: boolean;
  /** A mutating call that had started when the page closed: it may have taken effect. */
  maybeExecuted: boolean;
}

/**
 * A turn a reload (or a crash) cut off: started, never ended. `session.continueTurn()` finishes
 * it under the same id; `session.discardInterruptedTurn()` closes it as it is.
 */
export interface InterruptedTurn {
  turnId: string;
  /** What the turn was waiting for: a human decision, the model, or its tools. */
  reason: 'awaiting_approval' | 'awaiting_model' | 'tools_unfinished';
  pendingApprovals: readonly PendingApproval[];
  unfinishedToolCalls: readonly UnfinishedToolCall[];
  /** The text the model had streamed when the page closed (with a storage that keeps drafts). */
  partialText: string | null;
}
