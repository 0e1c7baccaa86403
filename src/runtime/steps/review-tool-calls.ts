/**
 * `reviewToolCalls`: which calls of a batch wait for the user. Per call, in this order:
 * 1. the arguments are parsed and validated (invalid ones, or an unknown tool, are never asked
 *    about: the call gets its error result when the batch runs);
 * 2. the agent's policy, then the session's rule for the tool (see `routeApproval`);
 * 3. the tool's `needsApproval`.
 * A decision made here (by the policy or a rule) is stored and emitted as `approval_resolved`.
 * The policy and `needsApproval` are foreign code: each is bounded by the hook time limit, and a
 * failure is reported (non-fatal `HOOK_FAILED`) and asks the user, the safe side.
 * @module
 */
import type {
  ApprovalVerdict,
  AwaitedApproval,
  ReviewInput,
  ReviewOutput,
} from '../../../machines/turn.types.js';
import { isoNow, type Clock } from '../../clock.js';
import type { ApprovalPolicy } from '../../config.js';
import { AgentError } from '../../errors.js';
import { decisionRecord, resolvedEvent, type ApprovalRules } from '../../approval/approval-records.js';
import { isPolicyAnswer, routeApproval } from '../../approval/approval-route.js';
import { callBounded } from '../../approval/bounded-call.js';
import type { ApprovalQuery, ToolHandler } from '../../ports/tool-handler.js';
import type { ToolDispatcher } from '../../tools/tool-dispatcher.js';
import type { AgentEventPayload, ErrorSource, SessionEventPayload, ToolCallRequest } from '../../types.js';

/** What `reviewToolCalls` uses. */
export interface ReviewScope {
  tools: Pick<ToolDispatcher, 'tool' | 'validArguments'>;
  pendingCalls: ReadonlyMap<string, ToolCallRequest>;
  policy: ApprovalPolicy | undefined;
  rules: ApprovalRules;
  /** The limit of each call of foreign approval code. */
  hookTimeoutMs: number;
  clock: Clock;
  record(payload: SessionEventPayload): void;
  emit(payload: AgentEventPayload): void;
  report(error: AgentError): void;
}

type Review = { awaiting: AwaitedApproval } | { decided: ApprovalVerdict } | null;

const isBoolean = (value: unknown): value is boolean => typeof value === 'boolean';

/** Runs the `reviewingTools` step. */
export async function reviewToolCalls(scope: ReviewScope, input: ReviewInput): Promise<ReviewOutput> {
  const reviews = await Promise.all(input.calls.map(({ callId }) => reviewCall(scope, input, callId)));
  const output: ReviewOutput = { awaiting: [], decided: [] };
  for (const review of reviews) {
    if (review === null) continue;
    if ('awaiting' in review) output.awaiting.push(review.awaiting);
    else {
      output.decided.push(review.decided);
      announceDecision(scope, input.turnId, review.decided);
    }
  }
  return output;
}

async function reviewCall(scope: ReviewScope, input: ReviewInput, callId: string): Promise<Review> {
  const call = scope.pendingCalls.get(callId);
  if (!call) throw new Error(`tool call '${callId}' has no recorded arguments`);
  const tool = scope.tools.tool(call.toolName);
  const valid = await scope.tools.validArguments(call);
  if (tool === undefined || valid === null) return null;
  const query: ApprovalQuery<unknown> = {
    callId,
    toolName: call.toolName,
    arguments: valid.value,
    sessionId: input.sessionId,
    turnId: input.turnId,
  };
  const awaiting = { awaiting: { callId, toolName: call.toolName, requestedAt: null } };

  let answer = undefined as Awaited<ReturnType<ApprovalPolicy>>;
  if (scope.policy !== undefined) {
    const policy = scope.policy;
    const outcome = await callBounded(() => policy(query), scope.hookTimeoutMs, scope.clock, isPolicyAnswer);
    if (!outcome.ok) {
      scope.report(approvalCodeFailed('the approval policy', callId, outcome.problem, 'agent'));
      return awaiting;
    }
    answer = outcome.value;
  }
  const route = routeApproval(answer, scope.rules.get(call.toolName));
  if (route.kind === 'decided') {
    const { kind: _kind, ...verdict } = route;
    return { decided: { callId, ...verdict } };
  }
  if (route.kind === 'ask') return awaiting;
  return (await toolNeedsApproval(scope, tool, query)) ? awaiting : null;
}

/** The tool's own rule; a failing function asks the user. */
async function toolNeedsApproval(
  scope: ReviewScope,
  tool: ToolHandler,
  query: ApprovalQuery<unknown>,
): Promise<boolean> {
  const check = tool.needsApproval;
  if (typeof check !== 'function') return check === true;
  const outcome = await callBounded(() => check(query), scope.hookTimeoutMs, scope.clock, isBoolean);
  if (outcome.ok) return outcome.value;
  scope.report(
    approvalCodeFailed(`needsApproval of tool '${tool.name}'`, query.callId, outcome.problem, 'tool'),
  );
  return true;
}

/** Stores a decision made without asking and tells the turn's subscribers. */
function announceDecision(scope: ReviewScope, turnId: string, verdict: ApprovalVerdict): void {
  scope.record(decisionRecord(turnId, verdict, isoNow(scope.clock)));
  scope.emit(resolvedEvent(verdict));
}

function approvalCodeFailed(what: string, callId: string, problem: string, source: ErrorSource): AgentError {
  return new AgentError(
    'HOOK_FAILED',
    `${what} failed for call '${callId}' (${problem}); the user is asked`,
    {
      source,
    },
  );
}
