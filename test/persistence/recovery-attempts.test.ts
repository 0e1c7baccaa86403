/**
 * Counting a turn's recoveries from its stored events: the attempt number, the runs that died in
 * a row without progress, and when the turn is spent.
 */
import { describe, expect, it } from 'vitest';
import { planRecovery, recoveryRecord } from '../../src/persistence/recovery-attempts.js';
import type { SessionEvent, SessionEventPayload } from '../../src/types.js';

const at = '2026-12-07T00:00:00.000Z';
const ev = (payload: SessionEventPayload): SessionEvent => ({ timestamp: at, payload });
const meta = (key: string, value: unknown) => ev({ type: 'metadata', key, value });
const started = (turnId: string) => meta('turn_started', { turnId });
const recovered = (turnId: string, attempt: number) => ev(recoveryRecord(turnId, attempt, at));
const usage = (turnId: string) => meta('usage', { turnId, usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 } });
const result = ev({ type: 'tool_result', callId: 'c1', content: 'ok', isError: false });
const user = ev({ type: 'user_message', content: [{ type: 'text', text: 'hi' }] });

describe('planRecovery', () => {
  it('the first death: attempt 1, one run spent', () => {
    expect(planRecovery([started('t'), user], 't', 3)).toEqual({ attempt: 1, runs: 1, exhausted: false });
  });

  it('counts the runs that died in a row, and is spent at maxAttempts', () => {
    const events = [started('t'), user, recovered('t', 1), recovered('t', 2)];
    expect(planRecovery(events, 't', 3)).toEqual({ attempt: 3, runs: 3, exhausted: true });
    expect(planRecovery(events, 't', 4)).toEqual({ attempt: 3, runs: 3, exhausted: false });
  });

  it('a stored model response or tool result resets the count, not the attempt number', () => {
    expect(planRecovery([started('t'), user, recovered('t', 1), usage('t')], 't', 3)).toEqual({
      attempt: 2,
      runs: 1,
      exhausted: false,
    });
    expect(planRecovery([started('t'), user, recovered('t', 1), result, recovered('t', 2)], 't', 2)).toEqual({
      attempt: 3,
      runs: 1,
      exhausted: false,
    });
  });

  it("ignores other turns' records, and a partial assistant message is no progress", () => {
    const partial = ev({ type: 'assistant_message', content: [{ type: 'text', text: 'half' }], status: 'incomplete' });
    const events = [started('old'), recovered('old', 1), usage('old'), started('t'), user, recovered('other', 1), partial, recovered('t', 1)];
    expect(planRecovery(events, 't', 2)).toEqual({ attempt: 2, runs: 2, exhausted: true });
  });
});
