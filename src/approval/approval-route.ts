/**
 * How one call's approval is decided, in order: the agent's policy, then the session's rule for
 * the tool, then the tool's own `needsApproval`. Pure, so the order is readable and testable
 * without a turn.
 * @module
 */
import type { ApprovalPolicyAnswer } from '../config.js';
import type { ApprovalRule } from './approval-records.js';

/** Where the first two rules leave a call. */
export type ApprovalRoute =
  /** Decided without asking anyone (`by` tells whose decision it is). */
  | { kind: 'decided'; approved: boolean; by: 'policy' | 'user'; reason?: string }
  /** Waits for the user. */
  | { kind: 'ask' }
  /** Neither said: the tool's `needsApproval` decides whether to ask. */
  | { kind: 'tool' };

/**
 * The route of one call from the policy's answer and the session's rule for its tool. `'ask'`
 * from the policy still lets a rule the user set answer for them.
 * @example
 * routeApproval(undefined, { approved: true }); // { kind: 'decided', approved: true, by: 'user' }
 */
export function routeApproval(policy: ApprovalPolicyAnswer, rule: ApprovalRule | undefined): ApprovalRoute {
  if (policy === 'allow') return { kind: 'decided', approved: true, by: 'policy' };
  if (policy === 'deny') return { kind: 'decided', approved: false, by: 'policy' };
  if (rule !== undefined) {
    return {
      kind: 'decided',
      approved: rule.approved,
      by: 'user',
      ...(rule.reason !== undefined && { reason: rule.reason }),
    };
  }
  return policy === 'ask' ? { kind: 'ask' } : { kind: 'tool' };
}

/** Whether `value` is an answer a policy may give. */
export function isPolicyAnswer(value: unknown): value is ApprovalPolicyAnswer {
  return value === undefined || value === 'allow' || value === 'ask' || value === 'deny';
}

/** What can make a call wait for a decision. */
export interface ApprovalSources {
  policy: unknown;
  rules: { readonly size: number };
  tools: { mayNeedApproval(): boolean };
  /** Tool sources: their tools are not known before a request. */
  toolSources: { readonly size: number };
}

/**
 * Whether any call of a turn may wait for a decision: with no policy, no session rule, no tool
 * that sets `needsApproval` and no tool source, every call runs unreviewed.
 * @example
 * approvalsPossible({ policy: undefined, rules: new Map(), tools, toolSources: new Map() });
 */
export function approvalsPossible(sources: ApprovalSources): boolean {
  return (
    sources.policy !== undefined ||
    sources.rules.size > 0 ||
    sources.toolSources.size > 0 ||
    sources.tools.mayNeedApproval()
  );
}
