/**
 * `awaitApprovals`: the calls of a batch that wait for the user. The requests are stored and
 * drained before `approval_requested` is emitted, so a reload after the event always finds them.
 * Each answer (`turn.approve` / `turn.deny`) is stored and drained before its `approval_resolved`
 * and before the answer's promise resolves; an answer `always` also stores a session rule for the
 * tool, which answers the batch's other calls of that tool at once. With an approval timeout,
 * the calls nobody decided in time are denied by `'timeout'`. The step ends once every call is
 * decided. A cancel is not this step's: {@link cancelPendingApprovals} answers what still waits.
 * @module
 */
import type {
  ApprovalVerdict,
  AwaitApprovalsInput,
  AwaitApprovalsOutput,
} from '../../../machines/turn.types.js';
import type { ApprovalDesk, PendingApproval } from '../../approval/approval-desk.js';
import {
  decisionRecord,
  requestRecord,
  resolvedEvent,
  ruleRecord,
  type ApprovalRule,
  type ApprovalRules,
} from '../../approval/approval-records.js';
import { isoNow, type Clock } from '../../clock.js';
import { MAX_TIMER_MS } from '../../timeout.js';
import { toolCallArguments } from '../../tools/parse-arguments.js';
import type { AgentEventPayload, SessionEventPayload, ToolCallRequest } from '../../types.js';

/** What `awaitApprovals` uses. */
export interface ApprovalsScope {
  desk: ApprovalDesk;
  pendingCalls: ReadonlyMap<string, ToolCallRequest>;
  /** The session's rules; an answer `always` adds one. */
  rules: ApprovalRules;
  /** `approval.timeoutMs`: 0 waits forever. */
  timeoutMs: number;
  clock: Clock;
  record(payload: SessionEventPayload): void;
  drainWrites(): Promise<void>;
  emit(payload: AgentEventPayload): void;
}

/** What answering a cancel needs. */
export type CancelApprovalsScope = Pick<ApprovalsScope, 'desk' | 'clock' | 'record' | 'emit'>;

/** Runs the `awaitingApproval` step. */
export async function awaitApprovals(
  scope: ApprovalsScope,
  input: AwaitApprovalsInput,
  signal: AbortSignal,
): Promise<AwaitApprovalsOutput> {
  const now = isoNow(scope.clock);
  const calls: PendingApproval[] = input.awaiting.map((awaited) => ({
    callId: awaited.callId,
    toolName: awaited.toolName,
    arguments: argumentsOf(scope, awaited.callId),
    requestedAt: awaited.requestedAt ?? now,
  }));
  const decided = new Map<string, ApprovalVerdict>();
  let allDecided!: () => void;
  const done = new Promise<void>((resolve) => (allDecided = resolve));
  const settle = (verdicts: readonly ApprovalVerdict[]) => {
    for (const verdict of verdicts) {
      decided.set(verdict.callId, verdict);
      scope.emit(resolvedEvent(verdict));
    }
    if (decided.size === calls.length) allDecided();
  };
  if (calls.length === 0) allDecided();
  const decide = (verdict: ApprovalVerdict) => {
    scope.record(decisionRecord(input.turnId, verdict, isoNow(scope.clock)));
    return verdict;
  };

  const announced = (async () => {
    for (const awaited of input.awaiting) {
      if (awaited.requestedAt === null) scope.record(requestRecord(input.turnId, awaited, now));
    }
    await scope.drainWrites();
    if (signal.aborted) return;
    for (const call of calls) {
      scope.emit({
        type: 'approval_requested',
        callId: call.callId,
        toolName: call.toolName,
        arguments: call.arguments,
      });
    }
  })();
  // On the desk at once (before any user code runs), so a cancel finds the calls even while the
  // requests are being stored.
  scope.desk.open(calls, async (call, answer) => {
    const verdict: ApprovalVerdict = {
      callId: call.callId,
      approved: answer.approved,
      by: 'user',
      ...(answer.reason !== undefined && { reason: answer.reason }),
    };
    const verdicts = [decide(verdict)];
    if (answer.always) {
      const rule: ApprovalRule = {
        approved: answer.approved,
        ...(answer.reason !== undefined && { reason: answer.reason }),
      };
      scope.rules.set(call.toolName, rule);
      scope.record(ruleRecord(call.toolName, rule));
      for (const other of scope.desk.pending.filter((c) => c.toolName === call.toolName)) {
        if (scope.desk.take(other.callId)) verdicts.push(decide({ ...verdict, callId: other.callId }));
      }
    }
    await scope.drainWrites();
    // A request is announced before its answer, even when the answer came first.
    await announced;
    settle(verdicts);
  });

  await announced;

  let timer: unknown;
  const timeOut = async () => {
    const verdicts = scope.desk
      .takeAll()
      .map((call) => decide({ callId: call.callId, approved: false, by: 'timeout' }));
    await scope.drainWrites();
    settle(verdicts);
  };
  if (scope.timeoutMs > 0 && !signal.aborted) {
    timer = scope.clock.setTimeout(() => void timeOut(), Math.min(scope.timeoutMs, MAX_TIMER_MS));
  }
  // A cancel stops this step; what still waits is answered by the cancel, not here.
  const onAbort = () => allDecided();
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    await done;
  } finally {
    signal.removeEventListener('abort', onAbort);
    if (timer !== undefined) scope.clock.clearTimeout(timer);
  }
  if (!signal.aborted) scope.desk.close();
  return { decided: calls.flatMap((call) => decided.get(call.callId) ?? []) };
}

/**
 * Answers every call still waiting as cancelled: stored (the turn's end drains it) and emitted
 * at once. The calls then get the skipped result when the turn ends.
 */
export function cancelPendingApprovals(scope: CancelApprovalsScope, turnId: string): void {
  for (const call of scope.desk.takeAll()) {
    const verdict: ApprovalVerdict = { callId: call.callId, approved: false, by: 'cancel' };
    scope.record(decisionRecord(turnId, verdict, isoNow(scope.clock)));
    scope.emit(resolvedEvent(verdict));
  }
}

function argumentsOf(scope: ApprovalsScope, callId: string): unknown {
  const call = scope.pendingCalls.get(callId);
  // A call the side channel lacks is a bug of the runtime: the batch's response recorded it.
  if (!call) throw new Error(`tool call '${callId}' has no recorded arguments`);
  return toolCallArguments(call.arguments);
}
