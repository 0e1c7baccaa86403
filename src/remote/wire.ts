/**
 * The wire between `youyou-agent/server` and `youyou-agent/remote`: the frames of a session's
 * event stream (Server-Sent Events), with the schemas the client checks each frame with.
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
 *
 * The schemas check every field the client reads or hands on, with the fewest zod features (the
 * page pays for each): objects keep keys they do not know (a newer server may add some), and a
 * value of the wrong type anywhere is refused.
 * @module
 */
import * as z from 'zod/mini';
import type { Conversation, ConversationItem } from '../conversation/schema.js';
import type { AgentEvent, AgentErrorData, InterruptedTurn, Message, TokenUsage } from '../types.js';

/** The largest frame a client accepts (characters of its `data:`). */
export const MAX_FRAME_BYTES = 8 * 1024 * 1024;

/** The response header that carries a new turn's id. */
export const TURN_ID_HEADER = 'youyou-turn-id';

/** The response header of a stream that says how often its server sends a heartbeat (ms). */
export const HEARTBEAT_HEADER = 'youyou-heartbeat-ms';

/** A session's current state (the `state` frame, `POST /sessions`, `GET /sessions/:id`). */
export interface SessionState {
  id: string;
  messages: readonly Message[];
  conversation: Conversation;
  interruptedTurn: InterruptedTurn | null;
}

/** What changed in a conversation between two of its states. */
export interface ConversationPatch {
  /** The number of items after the patch. */
  length: number;
  /** Items replaced or added. */
  set?: { at: number; item: ConversationItem }[];
  /** Assistant items that grew by these suffixes. */
  grow?: { at: number; text: string; reasoning: string }[];
  turn?: Conversation['turn'];
  usage?: TokenUsage;
  cost?: number | null;
  context?: Conversation['context'];
}

/** A turn's result on the wire. */
export interface WireResult {
  turnId: string;
  status: 'completed' | 'cancelled' | 'failed';
  usage: TokenUsage;
  cost: number | null;
  output?: unknown;
  error?: AgentErrorData;
  messages: readonly Message[];
  interruptedTurn: InterruptedTurn | null;
}

/** A frame's kind (its SSE `event:` name). */
export type FrameKind = 'state' | 'event' | 'patch' | 'result';

// ─── Schemas (client side) ──────────────────────────────────────────────────────────────

const str = z.string();
const num = z.number();
const bool = z.boolean();
const any = z.unknown();
const obj = z.looseObject;
const kind = <K extends string>(key: string, value: K, shape: Record<string, z.ZodMiniType> = {}) =>
  obj({ [key]: z.literal(value), ...shape });

const Usage = /* @__PURE__ */ (() =>
  obj({
    inputTokens: num,
    outputTokens: num,
    totalTokens: num,
    cachedInputTokens: z.optional(num),
    reasoningTokens: z.optional(num),
  }))();
const ErrorData = /* @__PURE__ */ (() => obj({ code: str, message: str, retryable: bool, source: str }))();
const Content = /* @__PURE__ */ (() =>
  z.array(
    z.union([kind('type', 'text', { text: str }), kind('type', 'image', { data: str, mediaType: str })]),
  ))();
const Output = /* @__PURE__ */ (() =>
  obj({ content: str, isError: z.optional(bool), metadata: z.optional(any) }))();

const Message = /* @__PURE__ */ (() =>
  z.union([
    kind('type', 'user', { content: Content }),
    kind('type', 'assistant', { content: Content, status: z.enum(['complete', 'incomplete']) }),
    kind('type', 'tool_call', { callId: str, toolName: str, arguments: any }),
    kind('type', 'tool_result', { callId: str, content: str, isError: bool }),
    kind('type', 'system', { content: str }),
  ]))();

const Item = /* @__PURE__ */ (() =>
  z.union([
    kind('kind', 'user', { id: str, content: Content }),
    kind('kind', 'assistant', {
      id: str,
      text: str,
      reasoning: str,
      status: z.enum(['streaming', 'complete', 'incomplete']),
    }),
    kind('kind', 'tool', {
      callId: str,
      toolName: str,
      arguments: any,
      status: z.enum(['awaiting_approval', 'running', 'done', 'error', 'skipped', 'denied']),
      output: z.optional(Output),
      durationMs: z.optional(num),
    }),
    kind('kind', 'notice', { id: str, level: z.enum(['info', 'warning', 'error']), text: str }),
  ]))();

const Turn = /* @__PURE__ */ (() =>
  z.nullable(obj({ id: str, status: z.enum(['running', 'awaiting_approval']) })))();
const Context = /* @__PURE__ */ (() => obj({ estimatedTokens: num, contextWindow: num, compactAt: num }))();

const ConversationShape = /* @__PURE__ */ (() =>
  obj({ items: z.array(Item), turn: Turn, usage: Usage, cost: z.nullable(num), context: Context }))();

const Interrupted = /* @__PURE__ */ (() =>
  z.nullable(
    obj({
      turnId: str,
      reason: z.enum(['awaiting_approval', 'awaiting_model', 'tools_unfinished']),
      pendingApprovals: z.array(obj({ callId: str, toolName: str, arguments: any, requestedAt: str })),
      unfinishedToolCalls: z.array(obj({ callId: str, toolName: str, mutating: bool, maybeExecuted: bool })),
      partialText: z.nullable(str),
    }),
  ))();

const Payload = /* @__PURE__ */ (() =>
  z.union([
    kind('type', 'text_delta', { text: str }),
    kind('type', 'reasoning_delta', { text: str }),
    kind('type', 'tool_call_start', { callId: str, toolName: str, arguments: any }),
    kind('type', 'tool_call_end', {
      callId: str,
      toolName: str,
      output: Output,
      durationMs: num,
      success: bool,
    }),
    kind('type', 'usage', { usage: Usage, cost: z.optional(num) }),
    kind('type', 'context_compacted', {
      tokensBefore: num,
      tokensAfter: num,
      strategy: z.enum(['micro', 'summary']),
    }),
    kind('type', 'turn_complete', { usage: Usage, finishReason: str }),
    kind('type', 'turn_cancelled'),
    kind('type', 'error', { error: ErrorData, fatal: bool }),
    kind('type', 'retry_scheduled', { attempt: num, delayMs: num, error: ErrorData }),
    kind('type', 'session_lock_lost', { by: z.enum(['steal', 'writer_replaced']) }),
    kind('type', 'turn_resumed', {
      reason: z.enum(['awaiting_approval', 'awaiting_model', 'tools_unfinished']),
    }),
    kind('type', 'approval_requested', { callId: str, toolName: str, arguments: any }),
    kind('type', 'approval_resolved', {
      callId: str,
      approved: bool,
      reason: z.optional(str),
      by: z.enum(['user', 'policy', 'timeout', 'cancel']),
    }),
    kind('type', 'output_delta', { partial: any }),
    kind('type', 'output', { output: any }),
  ]))();

/** Schema of a session state. */
export const SessionStateSchema = /* @__PURE__ */ (() =>
  obj({
    id: str,
    messages: z.array(Message),
    conversation: ConversationShape,
    interruptedTurn: Interrupted,
  }))();

/** Schema of a session state as `POST /sessions` and `GET /sessions/:id` answer it: with its stream position. */
export const ReadStateSchema = /* @__PURE__ */ (() =>
  obj({ ...SessionStateSchema.shape, eventId: z.nullable(str) }))();

/** Schema of one page of `GET /sessions`. */
export const SessionPageSchema = /* @__PURE__ */ (() =>
  obj({
    sessions: z.array(
      obj({
        id: str,
        title: str,
        modelId: str,
        createdAt: str,
        updatedAt: str,
        turnCount: num,
        eventCount: num,
      }),
    ),
    nextCursor: z.nullable(str),
  }))();

/** The schema of each frame, by kind. */
export const FRAME_SCHEMAS = /* @__PURE__ */ (() => ({
  state: SessionStateSchema,
  event: obj({ sessionId: str, turnId: z.nullable(str), timestamp: str, sequence: num, payload: Payload }),
  patch: obj({
    length: num,
    set: z.optional(z.array(obj({ at: num, item: Item }))),
    grow: z.optional(z.array(obj({ at: num, text: str, reasoning: str }))),
    turn: z.optional(Turn),
    usage: z.optional(Usage),
    cost: z.optional(z.nullable(num)),
    context: z.optional(Context),
  }),
  result: obj({
    turnId: str,
    status: z.enum(['completed', 'cancelled', 'failed']),
    usage: Usage,
    cost: z.nullable(num),
    output: z.optional(any),
    error: z.optional(ErrorData),
    messages: z.array(Message),
    interruptedTurn: Interrupted,
  }),
}))();

/** The value of each frame kind, once checked. */
export interface FrameData {
  state: SessionState;
  event: AgentEvent;
  patch: ConversationPatch;
  result: WireResult;
}

// ─── Ids ────────────────────────────────────────────────────────────────────────────────

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
  const match = id ? /^([\w-]{1,64})\.(\d{1,15})$/.exec(id) : null;
  return match ? { token: match[1]!, seq: Number(match[2]) } : null;
}
