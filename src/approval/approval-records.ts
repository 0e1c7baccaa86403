/**
 * The `metadata` records of approvals: what is stored when a call is asked about, decided, or
 * given a session rule, and how those records read back (a record that does not parse is
 * ignored, so older or foreign data never breaks a resume).
 * @module
 */
import * as z from 'zod/mini';
import type { ApprovalVerdict, AwaitedApproval } from '../../machines/turn.types.js';
import {
  APPROVAL_DECISION_KEY,
  APPROVAL_REQUESTED_KEY,
  APPROVAL_RULE_KEY,
} from '../persistence/metadata-keys.js';
import { recordOf } from '../persistence/metadata-records.js';
import type { AgentEventPayload, SessionEvent, SessionEventPayload } from '../types.js';

/** Schema of a stored `approval_requested` value. */
export const ApprovalRequestedRecordSchema = /* @__PURE__ */ (() =>
  z.looseObject({ turnId: z.string(), callId: z.string(), toolName: z.string(), requestedAt: z.string() }))();
/** A stored `approval_requested` value. */
export type ApprovalRequestedRecord = z.infer<typeof ApprovalRequestedRecordSchema>;

/** Schema of a stored `approval_decision` value. */
export const ApprovalDecisionRecordSchema = /* @__PURE__ */ (() =>
  z.looseObject({
    turnId: z.string(),
    callId: z.string(),
    approved: z.boolean(),
    by: z.enum(['user', 'policy', 'timeout', 'cancel']),
    reason: z.optional(z.string()),
    decidedAt: z.string(),
  }))();
/** A stored `approval_decision` value. */
export type ApprovalDecisionRecord = z.infer<typeof ApprovalDecisionRecordSchema>;

/** Schema of a stored `approval_rule` value. */
export const ApprovalRuleRecordSchema = /* @__PURE__ */ (() =>
  z.looseObject({ toolName: z.string(), approved: z.boolean(), reason: z.optional(z.string()) }))();

/** The user's standing answer for one tool in a session. */
export interface ApprovalRule {
  approved: boolean;
  reason?: string;
}

/** A session's rules, by tool name. */
export type ApprovalRules = Map<string, ApprovalRule>;

/** The record of a request. */
export function requestRecord(
  turnId: string,
  call: AwaitedApproval,
  requestedAt: string,
): SessionEventPayload {
  const value: ApprovalRequestedRecord = {
    turnId,
    callId: call.callId,
    toolName: call.toolName,
    requestedAt,
  };
  return { type: 'metadata', key: APPROVAL_REQUESTED_KEY, value };
}

/** The record of a decision. */
export function decisionRecord(
  turnId: string,
  verdict: ApprovalVerdict,
  decidedAt: string,
): SessionEventPayload {
  const value: ApprovalDecisionRecord = {
    turnId,
    callId: verdict.callId,
    approved: verdict.approved,
    by: verdict.by,
    ...(verdict.reason !== undefined && { reason: verdict.reason }),
    decidedAt,
  };
  return { type: 'metadata', key: APPROVAL_DECISION_KEY, value };
}

/** The `approval_resolved` event of a decision. */
export function resolvedEvent(verdict: ApprovalVerdict): AgentEventPayload {
  return {
    type: 'approval_resolved',
    callId: verdict.callId,
    approved: verdict.approved,
    ...(verdict.reason !== undefined && { reason: verdict.reason }),
    by: verdict.by,
  };
}

/** The record of a session rule. */
export function ruleRecord(toolName: string, rule: ApprovalRule): SessionEventPayload {
  return { type: 'metadata', key: APPROVAL_RULE_KEY, value: { toolName, ...rule } };
}

/** The session's rules as its stored events set them: the last rule of each tool holds. */
export function approvalRulesFromEvents(events: readonly SessionEvent[]): ApprovalRules {
  const rules: ApprovalRules = new Map();
  for (const event of events) {
    const record = recordOf(event, APPROVAL_RULE_KEY, ApprovalRuleRecordSchema);
    if (record === null) continue;
    rules.set(record.toolName, {
      approved: record.approved,
      ...(record.reason !== undefined && { reason: record.reason }),
    });
  }
  return rules;
}
