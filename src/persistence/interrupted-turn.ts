/**
 * Finding the turn a reload cut off, from a session's stored events. A turn is recorded by its
 * markers: `turn_started` when it starts, `turn_ended` when it ends, and `tool_started` before each
 * mutating tool runs. A start with no end is an interrupted turn; what it still owes is derived
 * from the events after its start: the calls with no stored result, and whether each mutating one
 * may have run. Sessions stored before the markers existed fall back to what the messages show.
 * Pure, so every prefix of a session can be checked without storage.
 * @module
 */
import * as z from 'zod/mini';
import type { SessionEvent } from '../types.js';
import { TOOL_STARTED_KEY, TURN_ENDED_KEY, TURN_STARTED_KEY } from './metadata-keys.js';
import { recordOf } from './metadata-records.js';

/** A call of the interrupted turn with no stored result. */
export interface UnfinishedCall {
  callId: string;
  toolName: string;
  /** The arguments as stored (parsed JSON, or the raw text when it was not JSON). */
  arguments: unknown;
  /** A `tool_started` marker was stored: the (mutating) call may have run. */
  maybeExecuted: boolean;
}

/** What the stored events say about an unfinished turn. */
export interface InterruptedTurnRecord {
  turnId: string;
  /** The calls with no result, in call order. */
  unfinished: UnfinishedCall[];
}

const TurnMarkerSchema = /* @__PURE__ */ (() => z.looseObject({ turnId: z.string() }))();
const ToolStartedSchema = /* @__PURE__ */ (() => z.looseObject({ turnId: z.string(), callId: z.string() }))();

/** The marker's turn id, or `null` when `event` is no valid marker of that key. */
const markerTurn = (event: SessionEvent, key: string): string | null =>
  recordOf(event, key, TurnMarkerSchema)?.turnId ?? null;

/**
 * The interrupted turn of a session, or `null` when every turn ended. `newTurnId` names a turn of
 * a session stored without markers (it has no id of its own).
 * @example
 * findInterruptedTurn(await storage.loadSession(id) ?? [], generateId);
 */
export function findInterruptedTurn(
  events: readonly SessionEvent[],
  newTurnId: () => string,
): InterruptedTurnRecord | null {
  let open: { turnId: string; from: number } | null = null;
  let marked = false;
  let lastUser = -1;
  for (let i = 0; i < events.length; i++) {
    const event = events[i]!;
    if (event.payload.type === 'user_message') lastUser = i;
    const started = markerTurn(event, TURN_STARTED_KEY);
    if (started !== null) {
      marked = true;
      open = { turnId: started, from: i + 1 };
      continue;
    }
    const ended = markerTurn(event, TURN_ENDED_KEY);
    if (ended !== null && open?.turnId === ended) open = null;
  }

  if (marked) {
    if (open === null) return null;
    const tail = events.slice(open.from);
    // The tab closed before the user message was stored: nothing of the turn is left to finish.
    if (!tail.some((e) => e.payload.type === 'user_message')) return null;
    return { turnId: open.turnId, unfinished: unfinishedCalls(tail, open.turnId) };
  }

  // Stored before markers: the last user message and what followed it.
  if (lastUser < 0) return null;
  const tail = events.slice(lastUser + 1);
  const unfinished = unfinishedCalls(tail, null);
  const answered = tail.some((e) => e.payload.type === 'assistant_message');
  if (unfinished.length === 0 && answered) return null;
  return { turnId: newTurnId(), unfinished };
}

/** The calls in `events` with no result, in call order; `turnId` scopes the `tool_started` markers. */
function unfinishedCalls(events: readonly SessionEvent[], turnId: string | null): UnfinishedCall[] {
  const calls = new Map<string, UnfinishedCall>();
  const started = new Set<string>();
  for (const event of events) {
    const p = event.payload;
    if (p.type === 'tool_call') {
      calls.set(p.callId, {
        callId: p.callId,
        toolName: p.toolName,
        arguments: p.arguments,
        maybeExecuted: false,
      });
    } else if (p.type === 'tool_result') {
      calls.delete(p.callId);
    } else {
      const marker = recordOf(event, TOOL_STARTED_KEY, ToolStartedSchema);
      if (marker && (turnId === null || marker.turnId === turnId)) started.add(marker.callId);
    }
  }
  return [...calls.values()].map((call) => ({ ...call, maybeExecuted: started.has(call.callId) }));
}
