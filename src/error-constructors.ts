/**
 * The `AgentError` constructors, one per code, so call sites stay short. Modules import them as a
 * namespace (`import * as Errors from './error-constructors.js'`): a bundler then sees each
 * constructor as a binding of its own, so it can shorten its name and drop the ones an app never
 * calls, which it cannot do with the keys of an object. Function declarations rather than arrow
 * constants: a bundler without code splitting wraps this module in a lazy initialiser (it is
 * reachable from an `import()`), and hoists functions out of it where constants stay inside.
 * @module
 */
import { AgentError, describeError, formatIssues, type AgentErrorOptions } from './agent-error.js';
import type { $ZodIssue } from 'zod/v4/core';

export function noModelProvider(): AgentError {
  return new AgentError('NO_MODEL_PROVIDER', 'at least one ModelProvider is required');
}
export function nameConflict(kind: string, name: string): AgentError {
  return new AgentError('NAME_CONFLICT', `${kind} name '${name}' is duplicated`);
}
export function skillDependencyNotMet(skill: string, tool: string): AgentError {
  return new AgentError('SKILL_DEPENDENCY_NOT_MET', `skill '${skill}' requires tool '${tool}'`);
}
export function pluginInitFailed(id: string, cause: unknown): AgentError {
  return new AgentError('PLUGIN_INIT_FAILED', `plugin '${id}': ${describeError(cause)}`, { cause });
}
export function storageDuplicate(kind: 'session' | 'memory'): AgentError {
  return new AgentError('STORAGE_DUPLICATE', `${kind} storage registered more than once`);
}
export function invalidDefaultModel(model: string): AgentError {
  return new AgentError('INVALID_DEFAULT_MODEL', `model '${model}' is not registered`);
}
export function sessionBusy(): AgentError {
  return new AgentError('SESSION_BUSY', 'a session is already running');
}
export function turnBusy(): AgentError {
  return new AgentError('TURN_BUSY', 'a turn is already running in this session');
}
export function modelNotSupported(model: string): AgentError {
  return new AgentError('MODEL_NOT_SUPPORTED', `model '${model}' is not supported by any provider`);
}
export function provider(message: string, options: Omit<AgentErrorOptions, 'source'> = {}): AgentError {
  return new AgentError('PROVIDER_ERROR', message, options);
}
export function toolTimeout(name: string, timeoutMs: number): AgentError {
  return new AgentError('TOOL_TIMEOUT', `tool '${name}' timed out after ${timeoutMs}ms`);
}
export function sessionNotFound(id: string): AgentError {
  return new AgentError('SESSION_NOT_FOUND', `session '${id}'`);
}
export function storage(message: string, cause?: unknown): AgentError {
  return new AgentError('STORAGE_ERROR', message, { cause });
}
export function maxToolCallsExceeded(limit: number): AgentError {
  return new AgentError('MAX_TOOL_CALLS_EXCEEDED', `limit is ${limit}`);
}
export function compact(message: string, cause?: unknown): AgentError {
  return new AgentError('COMPACT_ERROR', message, { cause });
}
export function requestCancelled(): AgentError {
  return new AgentError('REQUEST_CANCELLED', 'the request was cancelled');
}
export function invalidInput(message: string, cause?: unknown): AgentError {
  return new AgentError('INVALID_INPUT', message, { cause });
}
export function invalidInputFromIssues(
  what: string,
  issues: readonly $ZodIssue[],
  cause?: unknown,
): AgentError {
  return new AgentError('INVALID_INPUT', `invalid ${what}: ${formatIssues(issues, what)}`, { cause });
}
export function requestBlocked(reason: string): AgentError {
  return new AgentError('REQUEST_BLOCKED', `request blocked by hook: ${reason}`);
}
export function sessionClosed(): AgentError {
  return new AgentError('SESSION_CLOSED', 'the session is closed');
}
export function hookFailed(pluginId: string, event: string, cause: unknown): AgentError {
  return new AgentError('HOOK_FAILED', `plugin '${pluginId}' ${event} hook: ${describeError(cause)}`, {
    cause,
  });
}
export function memoryFailed(message: string, cause?: unknown): AgentError {
  return new AgentError('MEMORY_FAILED', message, { cause });
}
/** A bug in the runtime itself (a step or a machine that crashed), never a component's fault. */
export function internal(message: string, cause?: unknown): AgentError {
  return new AgentError('INTERNAL_ERROR', message, { cause });
}
export function sessionLocked(id: string): AgentError {
  return new AgentError('SESSION_LOCKED', `session '${id}' is open in another tab or agent`);
}
export function writerReplaced(id: string): AgentError {
  return new AgentError('SESSION_WRITER_REPLACED', `session '${id}' was taken over by another writer`);
}
export function approvalPending(callIds: readonly string[]): AgentError {
  return new AgentError('APPROVAL_PENDING', `tool calls await approval: ${callIds.join(', ')}`);
}
export function approvalNotPending(callId: string): AgentError {
  return new AgentError('APPROVAL_NOT_PENDING', `no approval is pending for call '${callId}'`);
}
export function outputInvalid(message: string, cause?: unknown): AgentError {
  return new AgentError('OUTPUT_INVALID', message, { cause });
}
export function budgetExceeded(message: string): AgentError {
  return new AgentError('BUDGET_EXCEEDED', message);
}
export function costUnknown(modelId: string): AgentError {
  return new AgentError(
    'COST_UNKNOWN',
    `model '${modelId}' has no pricing and no server cost: only token budgets apply`,
  );
}
export function toolSourceUnavailable(id: string, message: string, cause?: unknown): AgentError {
  return new AgentError('TOOL_SOURCE_UNAVAILABLE', `tool source '${id}': ${message}`, { cause });
}
