/**
 * The approvals of an unfinished turn, read back from a session's stored events: which calls
 * were asked about and never decided, and the whole batch as the Turn machine's
 * `awaitingApproval` state needs it to continue. Pure, so a reload can be tested without storage.
 *
 * A batch is the `tool_call`s after the last `user_message` that have no `tool_result` yet (the
 * turn stores the calls before anything else of the batch). A call asked about (an
 * `approval_requested` record of the turn) without an `approval_decision` still waits; a call
 * with a decision keeps it (an approved one runs, a denied one gets its denial).
 * @module
 */
import type { ApprovalBatch, ApprovalVerdict } from '../../machines/turn.types.js';
import { APPROVAL_DECISION_KEY, APPROVAL_REQUESTED_KEY } from '../persistence/metadata-keys.js';
import { recordOf } from '../persistence/metadata-records.js';
import type { SessionEvent } from '../types.js';
import type { PendingApproval } from './approval-desk.js';
import {
  ApprovalDecisionRecordSchema,
  ApprovalRequestedRecordSchema,
  type ApprovalRequestedRecord,
} from './approval-records.js';

/** A stored `tool_call` without its result. */
interface OpenCall {
  callId: string;
  toolName: string;
  arguments: unknown;
}

/**
 * What the stored events say of turn `turnId`'s approvals, in one pass: the calls that wait for a
 * decision, in call order, as `turn.pendingApprovals` lists them; and the batch that waits, ready
 * for the Turn machine's `restoreApprovals` action (`null` when none of its calls waits).
 * @example
 * approvalsFromEvents(await storage.loadSession(id), turnId).pending;
 * // [{ callId: 'c1', toolName: 'notes', arguments: { text: 'milk' }, requestedAt: '2030-01-01T00:00:00.000Z' }]
 */
export function approvalsFromEvents(
  events: readonly SessionEvent[],
  turnId: string,
): { pending: PendingApproval[]; batch: ApprovalBatch | null } {
  const turn = readTurn(events, turnId);
  return { pending: pendingOf(turn), batch: batchOf(turn) };
}

type TurnApprovals = ReturnType<typeof readTurn>;

function pendingOf({ calls, requests, decisions }: TurnApprovals): PendingApproval[] {
  return calls.flatMap((call) => {
    const request = requests.get(call.callId);
    if (request === undefined || decisions.has(call.callId)) return [];
    return [
      {
        callId: call.callId,
        toolName: call.toolName,
        arguments: call.arguments,
        requestedAt: request.requestedAt,
      },
    ];
  });
}

function batchOf({ calls, requests, decisions }: TurnApprovals): ApprovalBatch | null {
  const batch: ApprovalBatch = { calls: [], awaiting: [], decided: [] };
  for (const call of calls) {
    batch.calls.push({ callId: call.callId, toolName: call.toolName });
    const decision = decisions.get(call.callId);
    const request = requests.get(call.callId);
    if (decision !== undefined) batch.decided.push(decision);
    else if (request !== undefined) {
      batch.awaiting.push({ callId: call.callId, toolName: call.toolName, requestedAt: request.requestedAt });
    }
  }
  return batch.awaiting.length > 0 ? batch : null;
}

function readTurn(events: readonly SessionEvent[], turnId: string) {
  let calls: OpenCall[] = [];
  const requests = new Map<string, ApprovalRequestedRecord>();
  const decisions = new Map<string, ApprovalVerdict>();
  for (const event of events) {
    const { payload } = event;
    if (payload.type === 'user_message') calls = [];
    else if (payload.type === 'tool_call') {
      calls.push({ callId: payload.callId, toolName: payload.toolName, arguments: payload.arguments });
    } else if (payload.type === 'tool_result') {
      calls = calls.filter((call) => call.callId !== payload.callId);
    } else {
      const request = recordOf(event, APPROVAL_REQUESTED_KEY, ApprovalRequestedRecordSchema);
      if (request !== null && request.turnId === turnId) requests.set(request.callId, request);
      const decision = recordOf(event, APPROVAL_DECISION_KEY, ApprovalDecisionRecordSchema);
      if (decision !== null && decision.turnId === turnId) {
        decisions.set(decision.callId, {
          callId: decision.callId,
          approved: decision.approved,
          by: decision.by,
          ...(decision.reason !== undefined && { reason: decision.reason }),
        });
      }
    }
  }
  return { calls, requests, decisions };
}
