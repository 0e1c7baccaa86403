/**
 * What a turn must end with when nothing interrupts it, computed from its plan alone: the retry
 * rule (only retryable failures before any output, while attempts are left), the hooks that
 * block (`turn_start`, `pre_request`, `on_retry` aborts), the tool-call limit, and the usage of
 * the responses that completed.
 * @module
 */
import type { HookEvent } from '../../src/index.js';
import type { HookAct, TurnPlan } from './scenario.js';
import { attemptOutcome, FALLBACK } from './scripts.js';

/** The predicted end of a turn. */
export interface Prediction {
  status: 'completed' | 'failed';
  /** The failed attempt of each `retry_scheduled`, in order (1 for a response's first attempt). */
  retries: number[];
  /** For a completed turn. */
  finishReason: string | null;
  /** For a failed turn: the code of its fatal error. */
  errorCode: string | null;
  /** Model requests the turn makes (`purpose: 'turn'`). */
  requests: number;
  usage: { inputTokens: number; outputTokens: number };
}

/** The hook acts of a run and how many calls each event has had so far. */
export interface HookCursor {
  acts: Partial<Record<HookEvent, readonly HookAct[]>>;
  calls: Partial<Record<HookEvent, number>>;
}

/** What `plan` must end with, given the limits and the hooks' next acts. */
export function predictTurn(
  plan: TurnPlan,
  limits: { maxRetries: number; maxToolCallsPerTurn: number },
  hooks: HookCursor,
): Prediction {
  const calls = { ...hooks.calls };
  const next = (event: HookEvent): HookAct => {
    const acts = hooks.acts[event];
    const index = calls[event] ?? 0;
    calls[event] = index + 1;
    return acts?.[index % acts.length] ?? 'continue';
  };
  const usage = { inputTokens: 0, outputTokens: 0 };
  let requests = 0;
  const retries: number[] = [];
  const failed = (errorCode: string): Prediction => ({
    status: 'failed',
    retries,
    finishReason: null,
    errorCode,
    requests,
    usage,
  });

  if (next('turn_start') === 'abort') return failed('REQUEST_BLOCKED');
  let attempt = 1;
  let toolCalls = 0;
  let index = 0;
  for (;;) {
    if (next('pre_request') === 'abort') return failed('REQUEST_BLOCKED');
    const spec = plan.responses[index++] ?? FALLBACK;
    requests += 1;
    const outcome = attemptOutcome(spec);
    if (!outcome.ok) {
      const retry = outcome.retryable && !outcome.hadOutput && attempt <= limits.maxRetries;
      if (!retry || next('on_retry') === 'abort') return failed('PROVIDER_ERROR');
      retries.push(attempt);
      attempt += 1;
      continue;
    }
    attempt = 1;
    usage.inputTokens += spec.usage?.inputTokens ?? 0;
    usage.outputTokens += spec.usage?.outputTokens ?? 0;
    if (outcome.toolCalls === 0) {
      const finishReason = spec.ending.kind === 'done' ? spec.ending.finishReason : 'stop';
      return { status: 'completed', retries, finishReason, errorCode: null, requests, usage };
    }
    toolCalls += outcome.toolCalls;
    if (toolCalls >= limits.maxToolCallsPerTurn) {
      return {
        status: 'completed',
        retries,
        finishReason: 'max_tool_calls',
        errorCode: null,
        requests,
        usage,
      };
    }
  }
}
