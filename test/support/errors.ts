/**
 * The one way tests check a failure: {@link expectAgentError}.
 * @module
 */
import { expect } from 'vitest';
import { AgentError, type AgentErrorCode } from '../../src/index.js';

/**
 * The {@link AgentError} that `action` fails with — a promise that rejects, or a function that
 * throws (or returns a promise that rejects) — after checking that it is one, with `code` when
 * given. Fails the test when `action` succeeds or fails with anything else.
 * @example
 * await expectAgentError(agent.newSession(), 'SESSION_BUSY');
 * const error = await expectAgentError(() => decodeCursor('nope'), 'INVALID_INPUT');
 * expect(error.message).toContain("'nope'");
 */
export async function expectAgentError(
  action: PromiseLike<unknown> | (() => unknown),
  code?: AgentErrorCode,
): Promise<AgentError> {
  const expected = `an AgentError${code ? ` with code ${code}` : ''}`;
  let outcome: { failed: false; value: unknown } | { failed: true; error: unknown };
  try {
    const value = typeof action === 'function' ? action() : action;
    outcome = { failed: false, value: await value };
  } catch (error) {
    outcome = { failed: true, error };
  }
  if (!outcome.failed) {
    throw new Error(`expected ${expected}, but it succeeded with ${describe(outcome.value)}`);
  }
  const { error } = outcome;
  expect(AgentError.isInstance(error), `expected ${expected}, got ${describe(error)}`).toBe(true);
  expect(error).toBeInstanceOf(AgentError);
  if (code) expect((error as AgentError).code, (error as AgentError).message).toBe(code);
  return error as AgentError;
}

function describe(value: unknown): string {
  if (value instanceof Error) return `${value.name}: ${value.message}`;
  if (value === undefined || typeof value !== 'object' || value === null) return String(value);
  return value.constructor?.name ?? 'an object';
}
