/**
 * The renderable conversation's values: {@link Conversation} and {@link ConversationItem}, each
 * as a `zod/mini` schema with its inferred type beside it.
 *
 * Each module-scope schema is built inside an arrow call marked `@__PURE__`: to a bundler, zod's
 * builders are calls that may have effects, so without the mark an app would ship them unused.
 * @module
 */
import * as z from 'zod/mini';
import { integer } from '../vocabulary/checks.js';
import { ContentBlockSchema, TokenUsageSchema, ToolOutputSchema } from '../types.js';

/** Schema of {@link ConversationItem}. */
export const ConversationItemSchema = /* @__PURE__ */ (() =>
  z.discriminatedUnion('kind', [
    z.strictObject({ kind: z.literal('user'), id: z.string(), content: z.array(ContentBlockSchema) }),
    z.strictObject({
      kind: z.literal('assistant'),
      id: z.string(),
      text: z.string(),
      /** Live only: reasoning is never stored, so a resumed item has `''`. */
      reasoning: z.string(),
      status: z.enum(['streaming', 'complete', 'incomplete']),
    }),
    z.strictObject({
      kind: z.literal('tool'),
      callId: z.string(),
      toolName: z.string(),
      /** As the model sent them: parsed JSON, or the raw string when it was not valid JSON. */
      arguments: z.unknown(),
      status: z.enum(['awaiting_approval', 'running', 'done', 'error', 'skipped', 'denied']),
      /** What the model read: `content` and whether it is an error. Set once the call ended. */
      output: z.optional(ToolOutputSchema),
      /** Live only: execution time in ms (never stored). */
      durationMs: z.optional(z.number().check(z.minimum(0))),
    }),
    z.strictObject({
      kind: z.literal('notice'),
      id: z.string(),
      level: z.enum(['info', 'warning', 'error']),
      text: z.string(),
    }),
  ]))();
/**
 * One renderable entry of a conversation: a user message, an assistant answer (streaming or
 * ended), a tool call with its outcome, or a notice (compaction, interruption, tool-call limit,
 * errors and retries). User, assistant and notice items carry an `id`, tool items their `callId`;
 * both are stable for the life of the stored session, so a resumed session has the same keys.
 */
export type ConversationItem = z.infer<typeof ConversationItemSchema>;

/** Schema of {@link Conversation}. */
export const ConversationSchema = /* @__PURE__ */ (() =>
  z.strictObject({
    items: z.readonly(z.array(ConversationItemSchema)),
    /** The turn in flight, or `null` when none is. */
    turn: z.nullable(z.strictObject({ id: z.string(), status: z.enum(['running', 'awaiting_approval']) })),
    /** Tokens of every model response of this `Session` object (see `Session.conversation`). */
    usage: TokenUsageSchema,
    /** USD summed over the same responses; `null` while none reported a cost. */
    cost: z.nullable(z.number()),
    context: z.strictObject({
      /** Estimated tokens of the next request's context. */
      estimatedTokens: integer().check(z.minimum(0)),
      /** The model's window (`ModelInfo.contextWindow`). */
      contextWindow: integer().check(z.minimum(1)),
      /** The estimate above which the context is compacted (the window when compaction is off). */
      compactAt: integer().check(z.minimum(0)),
    }),
  }))();
/**
 * What a session's conversation looks like now, ready to render: its items, the turn in flight,
 * usage and cost totals, and a context meter. `session.conversation` emits one on every change.
 */
export type Conversation = z.infer<typeof ConversationSchema>;
