/**
 * The invariants checked after every property run, over what one `Session` object showed and
 * what its turns resolved to. Each check throws an `Error` saying what broke, so fast-check can
 * shrink the run that broke it.
 * @module
 */
import { isDeepStrictEqual } from 'node:util';
import * as z from 'zod/mini';
import {
  AgentEventSchema,
  MessageSchema,
  type AgentEvent,
  type Message,
  type RunningTurn,
  type Session,
  type TurnResult,
} from '../../src/index.js';
import type { Prediction } from './oracle.js';

/** One turn as the harness drove it. */
export interface TurnRecord {
  turn: RunningTurn;
  result: TurnResult;
  /** `turn.events`, replayed after the turn ended. */
  replay: AgentEvent[];
  /** The outcome the plan alone implies, when nothing interrupted the turn. */
  prediction: Prediction | null;
  /** Model requests made during it. */
  requests: number;
  /** The messages the turn appended to the history. */
  messages: Message[];
  /** When the user cancelled it: how many session events and model requests there were then. */
  cancelledAt: { events: number; requests: number } | null;
}

/** One `Session` object: what its `session.events` delivered and its turns. */
export interface SessionRecord {
  session: Session;
  events: AgentEvent[];
  completed: boolean;
  turns: TurnRecord[];
}

/** Error codes an `error` event may carry in these runs; anything else is a bug. */
// A failed attempt that is retried is a `retry_scheduled` event, not an error.
const NON_FATAL_CODES = new Set(['HOOK_FAILED', 'MAX_TOOL_CALLS_EXCEEDED', 'MEMORY_FAILED', 'COMPACT_ERROR']);
const FATAL_CODES = new Set(['PROVIDER_ERROR', 'REQUEST_BLOCKED']);

const TERMINAL_TYPES = new Set(['turn_complete', 'turn_cancelled']);

/** Whether `event` ends its turn: `turn_complete`, `turn_cancelled` or a fatal `error`. */
export function isTerminal(event: AgentEvent): boolean {
  const { payload } = event;
  return TERMINAL_TYPES.has(payload.type) || (payload.type === 'error' && payload.fatal);
}

function fail(message: string): never {
  throw new Error(message);
}

/**
 * Why `messages` is not a history a model request may carry, or `null`: every `tool_call` must
 * get exactly one `tool_result` before the next user or assistant message (ids may repeat: each
 * call is answered once, in turn).
 */
export function pairingProblem(messages: readonly Message[]): string | null {
  const open = new Map<string, number>();
  const openCount = () => [...open.values()].reduce((a, b) => a + b, 0);
  for (const [index, message] of messages.entries()) {
    if (message.type === 'tool_call') open.set(message.callId, (open.get(message.callId) ?? 0) + 1);
    else if (message.type === 'tool_result') {
      const waiting = open.get(message.callId) ?? 0;
      if (waiting === 0) return `message ${index}: a tool_result for '${message.callId}' answers no call`;
      open.set(message.callId, waiting - 1);
    } else if ((message.type === 'user' || message.type === 'assistant') && openCount() > 0) {
      return `message ${index} (${message.type}) follows ${openCount()} unanswered tool call(s)`;
    }
  }
  return openCount() > 0 ? `${openCount()} tool call(s) at the end have no tool_result` : null;
}

/** Every message is valid and every call answered exactly once. */
export function checkHistory(messages: readonly Message[], where: string): void {
  for (const [index, message] of messages.entries()) {
    if (!z.safeParse(MessageSchema, message).success)
      fail(`${where}: message ${index} is not a valid Message`);
  }
  const problem = pairingProblem(messages);
  if (problem) fail(`${where}: ${problem}`);
}

/** The resumed history is the live one. */
export function checkResumed(resumed: readonly Message[], live: readonly Message[], where: string): void {
  if (isDeepStrictEqual(resumed, live)) return;
  const at = resumed.findIndex((m, i) => !isDeepStrictEqual(m, live[i]));
  fail(
    `${where}: the resumed messages differ from the live ones (${resumed.length} vs ${live.length} messages; ` +
      `first difference at ${at === -1 ? live.length : at}: resumed ${JSON.stringify(resumed[at])}, live ${JSON.stringify(live[at === -1 ? resumed.length : at])})`,
  );
}

/** Everything one `Session` object showed, once it is closed. Returns the events checked. */
export function checkSession(
  record: SessionRecord,
  turnEnds: ReadonlyMap<string, readonly string[]>,
): number {
  const { events } = record;
  if (!record.completed) fail('session.events did not complete when the session closed');
  events.forEach((event, index) => {
    if (event.sequence !== index + 1)
      fail(`event ${index} has sequence ${event.sequence}, expected ${index + 1}`);
    if (!z.safeParse(AgentEventSchema, event).success) fail(`event ${index} is not a valid AgentEvent`);
    if (event.sessionId !== record.session.id) fail(`event ${index} names another session`);
    checkErrorCode(event, index);
  });
  const ids = new Set(record.turns.map((t) => t.turn.id));
  const stray = events.find((e) => e.turnId !== null && !ids.has(e.turnId));
  if (stray) fail(`event ${stray.sequence} (${stray.payload.type}) belongs to no turn of this session`);
  let previousLast = 0;
  for (const turn of record.turns) {
    const own = events.filter((e) => e.turnId === turn.turn.id);
    const label = `turn ${record.turns.indexOf(turn) + 1}`;
    checkTurn(turn, own, label, turnEnds.get(turn.turn.id) ?? []);
    if (own.length > 0 && own[0]!.sequence < previousLast)
      fail(`${label}: its events interleave with the previous turn's`);
    previousLast = own.at(-1)?.sequence ?? previousLast;
  }
  checkHistory(record.session.messages, 'live history');
  return events.length;
}

function checkErrorCode(event: AgentEvent, index: number): void {
  const { payload } = event;
  if (payload.type !== 'error') return;
  const allowed = payload.fatal ? FATAL_CODES : NON_FATAL_CODES;
  if (!allowed.has(payload.error.code)) {
    fail(
      `event ${index}: unexpected ${payload.fatal ? 'fatal' : 'non-fatal'} ${payload.error.code}: ${payload.error.message}`,
    );
  }
}

/** One terminal event, last; the result agrees; tool starts end; turn_end once; the replay matches. */
function checkTurn(record: TurnRecord, own: AgentEvent[], label: string, turnEnds: readonly string[]): void {
  const { result } = record;
  const terminals = own.filter(isTerminal);
  if (terminals.length !== 1) fail(`${label}: ${terminals.length} terminal events (${types(own)})`);
  const last = own.at(-1)!;
  if (!isTerminal(last))
    fail(`${label}: its last event is ${last.payload.type}, not its terminal event (${types(own)})`);
  const { payload } = last;
  const agrees =
    (payload.type === 'turn_complete' &&
      result.status === 'completed' &&
      isDeepStrictEqual(payload.usage, result.usage)) ||
    (payload.type === 'turn_cancelled' && result.status === 'cancelled') ||
    (payload.type === 'error' && result.status === 'failed' && payload.error.code === result.error?.code);
  if (!agrees)
    fail(`${label}: turn.result ${JSON.stringify(result)} disagrees with ${JSON.stringify(payload)}`);

  const running = new Map<string, number>();
  for (const event of own) {
    const p = event.payload;
    if (p.type === 'tool_call_start') running.set(p.callId, (running.get(p.callId) ?? 0) + 1);
    if (p.type === 'tool_call_end') {
      const n = running.get(p.callId) ?? 0;
      if (n === 0) fail(`${label}: tool_call_end of '${p.callId}' without its tool_call_start`);
      running.set(p.callId, n - 1);
    }
  }
  const unfinished = [...running.entries()].filter(([, n]) => n > 0).map(([id]) => id);
  if (unfinished.length > 0)
    fail(`${label}: tool_call_start without tool_call_end for ${unfinished.join(', ')}`);

  if (turnEnds.length !== 1) fail(`${label}: turn_end fired ${turnEnds.length} times`);
  if (turnEnds[0] !== result.status)
    fail(`${label}: turn_end said ${turnEnds[0]}, the result is ${result.status}`);
  if (!isDeepStrictEqual(record.replay, own))
    fail(`${label}: turn.events replayed other events than session.events delivered`);
  checkShownTextKept(record, own, label);
  checkNothingStartedAfterCancel(record, own, label);
  if (result.status === 'completed') checkUsageAddsUp(result, own, label);
  if (record.prediction) checkPrediction(record, own, label);
}

/**
 * The text the user saw streamed is the text the history keeps, complete or `incomplete`
 * (unless a compaction in the turn rewrote the history).
 */
function checkShownTextKept(record: TurnRecord, own: AgentEvent[], label: string): void {
  if (own.some((e) => e.payload.type === 'context_compacted')) return;
  const shown = own.map((e) => (e.payload.type === 'text_delta' ? e.payload.text : '')).join('');
  const kept = record.messages
    .map((m) =>
      m.type === 'assistant' ? m.content.map((b) => (b.type === 'text' ? b.text : '')).join('') : '',
    )
    .join('');
  if (shown !== kept)
    fail(`${label}: streamed ${JSON.stringify(shown)} but the history keeps ${JSON.stringify(kept)}`);
}

/** After `turn.cancel()`: no more deltas, no tool starts, no model request. */
function checkNothingStartedAfterCancel(record: TurnRecord, own: AgentEvent[], label: string): void {
  const at = record.cancelledAt;
  if (!at) return;
  const late = own.find(
    (e) =>
      e.sequence > at.events && ['text_delta', 'reasoning_delta', 'tool_call_start'].includes(e.payload.type),
  );
  if (late)
    fail(`${label}: ${late.payload.type} (event ${late.sequence}) after the cancel (event ${at.events})`);
  if (record.requests > at.requests) fail(`${label}: a model request after the cancel`);
}

/** A completed turn's usage is the sum of its responses' `usage` events. */
function checkUsageAddsUp(result: TurnResult, own: AgentEvent[], label: string): void {
  const sum = { inputTokens: 0, outputTokens: 0, totalTokens: 0 };
  for (const { payload } of own) {
    if (payload.type !== 'usage') continue;
    sum.inputTokens += payload.usage.inputTokens;
    sum.outputTokens += payload.usage.outputTokens;
    sum.totalTokens += payload.usage.totalTokens;
  }
  const { inputTokens, outputTokens, totalTokens } = result.usage;
  if (!isDeepStrictEqual(sum, { inputTokens, outputTokens, totalTokens })) {
    fail(
      `${label}: usage events add up to ${JSON.stringify(sum)}, the turn reports ${JSON.stringify(result.usage)}`,
    );
  }
}

function checkPrediction(record: TurnRecord, own: AgentEvent[], label: string): void {
  const terminal = own.at(-1)!.payload;
  const expected = record.prediction!;
  const { result } = record;
  const seen = {
    status: result.status,
    retries: own.flatMap((e) => (e.payload.type === 'retry_scheduled' ? [e.payload.attempt] : [])),
    finishReason: terminal.type === 'turn_complete' ? terminal.finishReason : null,
    errorCode: result.error?.code ?? null,
    requests: record.requests,
    usage: { inputTokens: result.usage.inputTokens, outputTokens: result.usage.outputTokens },
  };
  if (!isDeepStrictEqual(seen, expected)) {
    fail(`${label}: ended ${JSON.stringify(seen)}, but its script implies ${JSON.stringify(expected)}`);
  }
}

function types(events: AgentEvent[]): string {
  return events
    .map((e) =>
      e.payload.type === 'error' ? `error(${e.payload.fatal ? 'fatal' : 'non-fatal'})` : e.payload.type,
    )
    .join(', ');
}
