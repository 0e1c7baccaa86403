/**
 * The events on a session's stream, and the payloads that end a turn.
 *
 * Each module-scope schema is built inside an arrow call marked `@__PURE__`, so that a bundler
 * drops the ones an app does not use.
 * @module
 */
import * as z from 'zod/mini';
import { integer } from './checks.js';
import { isoTimestamp } from '../iso-timestamp.js';
import { AgentErrorDataSchema } from './error-codes.js';
import { ToolOutputSchema } from './tools.js';
import { nonNegativeInt, TokenUsageSchema } from './usage.js';

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
      attempt: integer().check(z.minimum(1)),
      /** The wait before the next attempt, in ms. */
      delayMs: z.number().check(z.minimum(0)),
      error: AgentErrorDataSchema,
    }),
    // Another tab (or Agent) took this session over; the session cancels its turn and closes.
    z.strictObject({ type: z.literal('session_lock_lost'), by: z.enum(['steal', 'writer_replaced']) }),
    // The first event of a turn continued after a reload (`session.continueTurn()`), or
    // recovered by a server after its instance stopped (`recovery`).
    z.strictObject({
      type: z.literal('turn_resumed'),
      reason: z.enum(['awaiting_approval', 'awaiting_model', 'tools_unfinished']),
      recovery: z.optional(z.strictObject({ attempt: integer().check(z.minimum(1)) })),
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
    sequence: integer().check(z.minimum(1)),
    payload: AgentEventPayloadSchema,
  }))();
/** One event on a session's stream. */
export type AgentEvent = z.infer<typeof AgentEventSchema>;

/** The payload types that end a turn: exactly one of them ends every turn. */
export type TerminalPayload =
  | Extract<AgentEventPayload, { type: 'turn_complete' | 'turn_cancelled' }>
  | (Extract<AgentEventPayload, { type: 'error' }> & { fatal: true });
