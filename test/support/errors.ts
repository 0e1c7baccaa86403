/**
 * The one way tests check a failure: {@link expectAgentError} for something that should fail, and
 * {@link asAgentError} for an error already caught (a stream outcome's `error`, say).
 * @module
 */
import { expect } from 'vitest';
import { AgentError, type AgentErrorCode } from '../../src/index.js';

/**
 * The {@link AgentError} that `action` fails with — a promise that rejects, or a function that
 * throws (or returns a promise that rejects) — after checking that it is one, with `code` when
 * given, and that its message contains each of `named`. Fails the test when `action` succeeds
 * or fails with anything else.
 * @example
 * await expectAgentError(agent.newSession(), 'SESSION_BUSY');
 * await expectAgentError(() => decodeCursor('nope'), 'INVALID_INPUT', "'nope'");
 */
export async function expectAgentError(
  action: PromiseLike<unknown> | (() => unknown),
  code?: AgentErrorCode,
  ...named: string[]
): Promise<AgentError> {
  let value: unknown;
  try {
    value = await (typeof action === 'function' ? action() : action);
  } catch (error) {
    const agentError = asAgentError(error, code);
    for (const part of named) expect(agentError.message).toContain(part);
    return agentError;
  }
  throw new Error(`expected ${anAgentError(code)}, but it succeeded with ${describe(value)}`);
}

/**
 * `error`, after checking that it is an {@link AgentError}, with `code` when given.
 * @example
 * const { events, error } = await collect(provider.chat(request, signal));
 * expect(asAgentError(error, 'PROVIDER_ERROR').retryable).toBe(true);
 */
export function asAgentError(error: unknown, code?: AgentErrorCode): AgentError {
  expect(AgentError.isInstance(error), `expected ${anAgentError(code)}, got ${describe(error)}`).toBe(true);
  expect(error).toBeInstanceOf(AgentError);
  const agentError = error as AgentError;
  if (code) expect(agentError.code, agentError.message).toBe(code);
  return agentError;
}

const anAgentError = (code?: AgentErrorCode) => `an AgentError${code ? ` with code ${code}` : ''}`;

function describe(value: unknown): string {
  if (value instanceof Error) return `${value.name}: ${value.message}`;
  if (typeof value !== 'object' || value === null) return String(value);
  return value.constructor?.name ?? 'an object';
}
