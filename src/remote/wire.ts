/**
 * The wire between `youyou-agent/server` and `youyou-agent/remote`: the frames of a session's
 * event stream (Server-Sent Events), each as a `zod/mini` schema, so the client validates every
 * message it receives and the server builds exactly what the client accepts.
 *
 * A stream is a sequence of frames, each with an SSE `id:` of the form `<token>.<seq>`: `token`
 * names the copy of the session the server holds (a new one whenever an instance opens it),
 * `seq` counts that copy's frames. A client echoes the id of the last frame it applied
 * (`Last-Event-ID`); the server replays what follows it when it still has that copy, and
 * otherwise starts with a `state` frame, which replaces whatever the client showed.
 *
 * - `state` — the conversation as it is now, the history and the interrupted turn.
 * - `event` — one `AgentEvent` of the session, as `session.events` emitted it.
 * - `patch` — what changed in the conversation: items replaced whole, or an assistant item's
 *   text and reasoning grown by a suffix (a streamed delta costs its own length, not the item's).
 * - `result` — a turn's `turn.result`, with the history after it.
 * @module
 */
import * as z from 'zod/mini';
import { ConversationItemSchema, ConversationSchema, type Conversation } from '../conversation/schema.js';
import {
  AgentErrorDataSchema,
  AgentEventSchema,
  MessageSchema,
  TokenUsageSchema,
  type InterruptedTurn,
  type Message,
  type TokenUsage,
} from '../types.js';

/** The largest frame a client accepts (bytes of its `data:`), beyond which the stream is refused. */
export const MAX_FRAME_BYTES = 8 * 1024 * 1024;

/** The response header that carries a new turn's id. */
export const TURN_ID_HEADER = 'youyou-turn-id';

const PendingApprovalSchema = /* @__PURE__ */ (() =>
  z.strictObject({
    callId: z.string(),
    toolName: z.string(),
    arguments: z.unknown(),
    requestedAt: z.string(),
  }))();

/** Schema of an `InterruptedTurn` as the server sends it. */
export const InterruptedTurnSchema = /* @__PURE__ */ (() =>
  z.strictObject({
    turnId: z.string(),
    reason: z.enum(['awaiting_approval', 'awaiting_model', 'tools_unfinished']),
    pendingApprovals: z.array(PendingApprovalSchema),
    unfinishedToolCalls: z.array(
      z.strictObject({
        callId: z.string(),
        toolName: z.string(),
        mutating: z.boolean(),
        maybeExecuted: z.boolean(),
      }),
    ),
    partialText: z.nullable(z.string()),
  }))();

/** Schema of a session's current state (the `state` frame and `GET /sessions/:id`). */
export const SessionStateSchema = /* @__PURE__ */ (() =>
  z.strictObject({
    id: z.string(),
    messages: z.array(MessageSchema),
    conversation: ConversationSchema,
    interruptedTurn: z.nullable(InterruptedTurnSchema),
  }))();
/** A session's current state. */
export interface SessionState {
  id: string;
  messages: readonly Message[];
  conversation: Conversation;
  interruptedTurn: InterruptedTurn | null;
}

/** Schema of a session's state as `POST /sessions` and `GET /sessions/:id` answer it: with the stream position it was taken at. */
export const ReadStateSchema = /* @__PURE__ */ (() =>
  z.extend(SessionStateSchema, { eventId: z.nullable(z.string()) }))();

/** Schema of a conversation patch. */
export const ConversationPatchSchema = /* @__PURE__ */ (() =>
  z.strictObject({
    /** The number of items after the patch. */
    length: z.number().check(z.int(), z.minimum(0)),
    /** `[index, item]`: items replaced or added. */
    set: z.optional(z.array(z.tuple([z.number().check(z.int(), z.minimum(0)), ConversationItemSchema]))),
    /** `[index, text suffix, reasoning suffix]`: an assistant item that grew. */
    grow: z.optional(z.array(z.tuple([z.number().check(z.int(), z.minimum(0)), z.string(), z.string()]))),
    turn: z.optional(ConversationSchema.shape.turn),
    usage: z.optional(TokenUsageSchema),
    cost: z.optional(z.nullable(z.number())),
    context: z.optional(ConversationSchema.shape.context),
  }))();
/** What changed in a conversation between two of its states. */
export type ConversationPatch = z.infer<typeof ConversationPatchSchema>;

/** Schema of a turn's result on the wire. */
export const WireResultSchema = /* @__PURE__ */ (() =>
  z.strictObject({
    turnId: z.string(),
    status: z.enum(['completed', 'cancelled', 'failed']),
    usage: TokenUsageSchema,
    cost: z.nullable(z.number()),
    output: z.optional(z.unknown()),
    error: z.optional(AgentErrorDataSchema),
    messages: z.array(MessageSchema),
    interruptedTurn: z.nullable(InterruptedTurnSchema),
  }))();
/** A turn's result on the wire. */
export type WireResult = z.infer<typeof WireResultSchema>;

/** The frames, by SSE event name. */
export const FRAME_SCHEMAS = {
  state: SessionStateSchema,
  event: AgentEventSchema,
  patch: ConversationPatchSchema,
  result: WireResultSchema,
} as const;

/** A frame's kind (its SSE `event:` name). */
export type FrameKind = keyof typeof FRAME_SCHEMAS;

/** A frame, checked. */
export type Frame =
  | { kind: 'state'; data: SessionState }
  | { kind: 'event'; data: z.infer<typeof AgentEventSchema> }
  | { kind: 'patch'; data: ConversationPatch }
  | { kind: 'result'; data: WireResult };

/** The parts of a frame id. */
export interface FrameId {
  token: string;
  seq: number;
}

/** Writes a frame id. */
export function frameId(token: string, seq: number): string {
  return `${token}.${seq}`;
}

/** Reads a frame id; `null` when it is not one. */
export function parseFrameId(id: string | null | undefined): FrameId | null {
  if (!id) return null;
  const match = /^([A-Za-z0-9_-]{1,64})\.(\d{1,15})$/.exec(id);
  return match ? { token: match[1]!, seq: Number(match[2]) } : null;
}

/** Zero usage, for a result without one. */
export const NO_USAGE: TokenUsage = { inputTokens: 0, outputTokens: 0, totalTokens: 0 };
