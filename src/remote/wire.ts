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
 * - `state` — the conversation as it is now, the history, the interrupted turn and the last
 *   turn's result (a client whose stream broke near a turn's end settles that turn from it).
 * - `event` — one `AgentEvent` of the session, as `session.events` emitted it, with the change it
 *   made to the session (`patch`, as below) in the same frame.
 * - `delta` — a streamed `text_delta` or `reasoning_delta` whose only change is the growth of
 *   one answer item by the same text, in short: `{ s: sequence, i: item index, t: text }` (or
 *   `r:` for reasoning). The session id, the turn id (the conversation's running turn) and the
 *   time are not repeated per delta: the client knows the first two, and takes its own clock.
 * - `patch` — what changed in the conversation: items replaced whole, or an assistant item's
 *   text and reasoning grown by a suffix; and in `messages`, what changed in the history (the
 *   messages appended, or the part a compaction replaced), never the whole list again.
 * - `result` — a turn's `turn.result` (without the history: that came as patches).
 *
 * A turn's frames are kept for replay only while it runs: a reconnect from before the end of
 * the last turn starts with a `state`.
 *
 * The schemas check every field the client reads or hands on, with the fewest zod features (the
 * page pays for each): objects keep keys they do not know (a newer server may add some), and a
 * value of the wrong type anywhere is refused.
 * @module
 */
import * as z from 'zod/mini';
import type { Conversation, ConversationItem } from '../conversation/schema.js';
import type { AgentEvent, AgentErrorData, InterruptedTurn, Message, TokenUsage } from '../types.js';

/**
 * The largest frame a client accepts (characters of its `data:`), except a `state`, which
 * carries the whole history and is read whatever its size.
 */
export const MAX_FRAME_BYTES = 64 * 1024 * 1024;

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
  /** The last turn this copy of the session ran to its end, with its result; `null` when none. */
  lastTurn?: LastTurn | null;
}

/** A session's last ended turn. */
export interface LastTurn {
  turnId: string;
  result: WireResult;
}

/** What changed in the history: `remove` messages at `at` replaced by `insert`. */
export interface MessagesSplice {
  at: number;
  remove: number;
  insert: readonly Message[];
}

/** What changed in a session: its conversation, and its history when that changed too. */
export interface SessionPatch extends ConversationPatch {
  messages?: MessagesSplice;
}

/** An `event` frame: the event and the change it made. */
export interface EventFrame {
  event: AgentEvent;
  patch?: SessionPatch;
}

/** A `delta` frame: a streamed delta that grew item `i` by its text (`t`) or reasoning (`r`). */
export interface DeltaFrame {
  /** The event's `sequence`. */
  s: number;
  /** The index of the answer item it grew. */
  i: number;
  t?: string;
  r?: string;
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
  interruptedTurn: InterruptedTurn | null;
}

/** A frame's kind (its SSE `event:` name). */
export type FrameKind = 'state' | 'event' | 'delta' | 'patch' | 'result';

// ─── Schemas (client side) ──────────────────────────────────────────────────────────────

const str = z.string();
const num = z.number();
const bool = z.boolean();
const any = z.unknown();
const obj = z.looseObject;
const kind = <K extends string>(key: string, value: K, shape: Record<string, z.ZodMiniType> = {}) =>
  obj({ [key]: z.enum([value]), ...shape });

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

/**
 * An event's payload. The payloads whose fields the client reads are checked in full; any other
 * is checked for a known type, and handed on as the server sent it.
 */
const Payload = /* @__PURE__ */ (() =>
  z.union([
    kind('type', 'text_delta', { text: str }),
    kind('type', 'reasoning_delta', { text: str }),
    kind('type', 'approval_requested', { callId: str, toolName: str, arguments: any }),
    kind('type', 'approval_resolved', { callId: str }),
    kind('type', 'error', { fatal: bool }),
    obj({
      type: z.enum([
        'tool_call_start',
        'tool_call_end',
        'usage',
        'context_compacted',
        'turn_complete',
        'turn_cancelled',
        'retry_scheduled',
        'session_lock_lost',
        'turn_resumed',
        'output_delta',
        'output',
      ]),
    }),
  ]))();

const Result = /* @__PURE__ */ (() =>
  obj({
    turnId: str,
    status: z.enum(['completed', 'cancelled', 'failed']),
    usage: Usage,
    cost: z.nullable(num),
    output: z.optional(any),
    error: z.optional(ErrorData),
    interruptedTurn: Interrupted,
  }))();

/** Schema of a session state. */
export const SessionStateSchema = /* @__PURE__ */ (() =>
  obj({
    id: str,
    messages: z.array(Message),
    conversation: ConversationShape,
    interruptedTurn: Interrupted,
    lastTurn: z.optional(z.nullable(obj({ turnId: str, result: Result }))),
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

const Patch = /* @__PURE__ */ (() =>
  obj({
    length: num,
    set: z.optional(z.array(obj({ at: num, item: Item }))),
    grow: z.optional(z.array(obj({ at: num, text: str, reasoning: str }))),
    turn: z.optional(Turn),
    usage: z.optional(Usage),
    cost: z.optional(z.nullable(num)),
    context: z.optional(Context),
    messages: z.optional(obj({ at: num, remove: num, insert: z.array(Message) })),
  }))();

/** The schema of each frame, by kind. */
export const FRAME_SCHEMAS = /* @__PURE__ */ (() => ({
  state: SessionStateSchema,
  event: obj({
    event: obj({ sessionId: str, turnId: z.nullable(str), timestamp: str, sequence: num, payload: Payload }),
    patch: z.optional(Patch),
  }),
  delta: obj({ s: num, i: num, t: z.optional(str), r: z.optional(str) }),
  patch: Patch,
  result: Result,
}))();

/** The value of each frame kind, once checked. */
export interface FrameData {
  state: SessionState;
  event: EventFrame;
  delta: DeltaFrame;
  patch: SessionPatch;
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
