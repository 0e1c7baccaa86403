/**
 * `ApprovalDesk`: where a turn's pending approvals meet the user's answers. The `awaitApprovals`
 * step opens it with the calls that wait and the handler that stores each answer; `turn.approve`
 * and `turn.deny` hand answers in. A call is taken off the desk the moment it is answered, so a
 * second answer, a timeout or a cancel never decides it twice.
 * @module
 */
import * as Errors from '../error-constructors.js';
import type { PendingApproval } from '../types.js';

export type { PendingApproval } from '../types.js';

/** The user's answer to one call. */
export interface ApprovalAnswer {
  approved: boolean;
  reason?: string;
  /** Also answer every later call of the same tool in this session. */
  always: boolean;
}

/** Stores one answer; resolves once it is stored. */
export type AnswerHandler = (call: PendingApproval, answer: ApprovalAnswer) => Promise<void>;

/** The pending approvals of one turn. */
export class ApprovalDesk {
  #pending: readonly PendingApproval[] = [];
  #handler: AnswerHandler | null = null;

  /** The calls waiting, in call order (a new array after every change). */
  get pending(): readonly PendingApproval[] {
    return this.#pending;
  }

  /** Puts `calls` on the desk; `handler` stores the answers. */
  open(calls: readonly PendingApproval[], handler: AnswerHandler): void {
    this.#pending = calls;
    this.#handler = handler;
  }

  /** Answers one call: `APPROVAL_NOT_PENDING` for an unknown or already decided one. */
  answer(callId: string, answer: ApprovalAnswer): Promise<void> {
    const handler = this.#handler;
    const call = this.take(callId);
    if (call === undefined || handler === null) return Promise.reject(Errors.approvalNotPending(callId));
    return handler(call, answer);
  }

  /** Takes one call off the desk (it is then decided by whoever took it). */
  take(callId: string): PendingApproval | undefined {
    const call = this.#pending.find((c) => c.callId === callId);
    if (call !== undefined) this.#pending = this.#pending.filter((c) => c !== call);
    return call;
  }

  /** Takes every call still waiting and closes the desk. */
  takeAll(): readonly PendingApproval[] {
    const calls = this.#pending;
    this.close();
    return calls;
  }

  /** Nothing waits any more; later answers are `APPROVAL_NOT_PENDING`. */
  close(): void {
    this.#pending = [];
    this.#handler = null;
  }
}
