/**
 * Loading a stored session for `agent.resumeSession`.
 * @module
 */
import type { Clock } from '../clock.js';
import type { UsageTotals } from '../conversation/usage-totals.js';
import { pairToolCalls } from '../context/pair-tool-calls.js';
import { AgentError, describeError } from '../errors.js';
import * as Errors from '../error-constructors.js';
import { generateId } from '../ids.js';
import type { SessionStorage } from '../ports/storage.js';
import { INTERRUPTED_MESSAGE_NOTE } from '../prompt/templates.js';
import { TOOL_CALL_INTERRUPTED_TEXT } from '../prompt/tool-result-texts.js';
import { TIMED_OUT, withTimeout } from '../timeout.js';
import type { ApprovalBatch } from '../../machines/turn.types.js';
import { approvalsFromEvents } from '../approval/pending-from-events.js';
import type { Message, PendingApproval, SessionEvent } from '../types.js';
import { findInterruptedTurn, type InterruptedTurnRecord } from './interrupted-turn.js';
import { replaySessionEvents, type ReplayedSession } from './replay.js';
import { storedUsageTotals } from './usage-records.js';

/** What a resumed session finds of a turn a reload cut off. */
export interface LoadedInterruptedTurn extends InterruptedTurnRecord {
  /**
   * The derived results standing in, in the history, for the calls with no stored result (so the
   * history is valid for a request); stored as they are by a discard, replaced by a continue.
   */
  placeholders: Extract<Message, { type: 'tool_result' }>[];
  /** The streamed text of the draft saved for this turn, if any. */
  partialText: string | null;
  /** The calls asked about and never decided, in call order. */
  pendingApprovals: PendingApproval[];
  /** The batch those calls belong to, as the Turn machine re-enters `awaitingApproval` with it. */
  approvalBatch: ApprovalBatch | null;
  /** What the turn's responses before the reload used: a continued turn's budget goes on from it. */
  spent: UsageTotals;
}

/** A stored session, ready to reopen. */
export interface LoadedSession extends ReplayedSession {
  /** Every stored event (the conversation shows them all, not only those after the last compaction). */
  events: readonly SessionEvent[];
  interrupted: LoadedInterruptedTurn | null;
}

/**
 * Loads and replays a session; `SESSION_NOT_FOUND` when the storage does not know it. The history
 * it returns is always valid for the next request: a call with no stored result (a reload cut
 * its turn off) gets a derived error result. Loading the draft is bounded by `timeoutMs`; a draft
 * that fails to load is left out (the messages are what count).
 */
export async function loadSessionForResume(
  storage: SessionStorage,
  sessionId: string,
  options: { timeoutMs: number; clock: Clock },
): Promise<LoadedSession> {
  let events;
  try {
    events = await storage.loadSession(sessionId);
  } catch (error) {
    if (AgentError.isInstance(error)) throw error;
    throw Errors.storage(`loading session '${sessionId}' failed: ${describeError(error)}`, error);
  }
  if (!events) throw Errors.sessionNotFound(sessionId);
  const replayed = replaySessionEvents(events, INTERRUPTED_MESSAGE_NOTE);
  const paired = pairToolCalls(replayed.messages, TOOL_CALL_INTERRUPTED_TEXT);
  const record = findInterruptedTurn(events, generateId);
  let interrupted: LoadedInterruptedTurn | null = null;
  if (record) {
    const unfinished = new Set(record.unfinished.map((call) => call.callId));
    const approvals = approvalsFromEvents(events, record.turnId);
    interrupted = {
      ...record,
      placeholders: paired.added.filter((result) => unfinished.has(result.callId)),
      partialText: await loadPartialText(storage, sessionId, record.turnId, options),
      pendingApprovals: approvals.pending,
      approvalBatch: approvals.batch,
      spent: storedUsageTotals(events, record.turnId),
    };
  }
  return { ...replayed, messages: paired.messages, events, interrupted };
}

/** The draft's text when it belongs to `turnId` and is not empty; `null` otherwise or on failure. */
async function loadPartialText(
  storage: SessionStorage,
  sessionId: string,
  turnId: string,
  { timeoutMs, clock }: { timeoutMs: number; clock: Clock },
): Promise<string | null> {
  if (typeof storage.loadDraft !== 'function') return null;
  try {
    const draft = await withTimeout(
      Promise.resolve(storage.loadDraft(sessionId)),
      timeoutMs,
      undefined,
      clock,
    );
    // A storage's answer is foreign data: only a draft of this turn with text counts.
    if (draft === TIMED_OUT || typeof draft !== 'object' || draft === null) return null;
    if (draft.turnId !== turnId || typeof draft.text !== 'string' || draft.text === '') return null;
    return draft.text;
  } catch {
    return null;
  }
}
