/**
 * Sessions: their options, their persisted events, and how a storage lists them.
 *
 * Each module-scope schema is built inside an arrow call marked `@__PURE__`, so that a bundler
 * drops the ones an app does not use.
 * @module
 */
import * as z from 'zod/mini';
import { isoTimestamp } from '../iso-timestamp.js';
import { assistantFields, systemFields, toolCallFields, toolResultFields, userFields } from './messages.js';
import { nonNegativeInt } from './usage.js';

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
    /** The user who owns it (from its `session_owner` metadata), when a server recorded one. */
    owner: z.optional(z.string()),
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
