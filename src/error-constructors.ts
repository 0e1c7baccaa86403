/**
 * The `AgentError` constructors, one per code, so call sites stay short. Modules import them as a
 * namespace (`import * as Errors from './error-constructors.js'`): a bundler then sees each
 * constructor as a binding of its own, so it can shorten its name and drop the ones an app never
 * calls, which it cannot do with the keys of an object.
 * @module
 */
import { AgentError, describeError, formatIssues, type AgentErrorOptions } from './agent-error.js';
import type { $ZodIssue } from 'zod/v4/core';

export const noModelProvider = () =>
  new AgentError('NO_MODEL_PROVIDER', 'at least one ModelProvider is required');
export const nameConflict = (kind: string, name: string) =>
  new AgentError('NAME_CONFLICT', `${kind} name '${name}' is duplicated`);
export const skillDependencyNotMet = (skill: string, tool: string) =>
  new AgentError('SKILL_DEPENDENCY_NOT_MET', `skill '${skill}' requires tool '${tool}'`);
export const pluginInitFailed = (id: string, cause: unknown) =>
  new AgentError('PLUGIN_INIT_FAILED', `plugin '${id}': ${describeError(cause)}`, { cause });
export const storageDuplicate = (kind: 'session' | 'memory') =>
  new AgentError('STORAGE_DUPLICATE', `${kind} storage registered more than once`);
export const invalidDefaultModel = (model: string) =>
  new AgentError('INVALID_DEFAULT_MODEL', `model '${model}' is not registered`);
export const sessionBusy = () => new AgentError('SESSION_BUSY', 'a session is already running');
export const turnBusy = () => new AgentError('TURN_BUSY', 'a turn is already running in this session');
export const modelNotSupported = (model: string) =>
  new AgentError('MODEL_NOT_SUPPORTED', `model '${model}' is not supported by any provider`);
export const provider = (message: string, options: Omit<AgentErrorOptions, 'source'> = {}) =>
  new AgentError('PROVIDER_ERROR', message, options);
export const toolTimeout = (name: string, timeoutMs: number) =>
  new AgentError('TOOL_TIMEOUT', `tool '${name}' timed out after ${timeoutMs}ms`);
export const sessionNotFound = (id: string) => new AgentError('SESSION_NOT_FOUND', `session '${id}'`);
export const storage = (message: string, cause?: unknown) =>
  new AgentError('STORAGE_ERROR', message, { cause });
export const maxToolCallsExceeded = (limit: number) =>
  new AgentError('MAX_TOOL_CALLS_EXCEEDED', `limit is ${limit}`);
export const compact = (message: string, cause?: unknown) =>
  new AgentError('COMPACT_ERROR', message, { cause });
export const requestCancelled = () => new AgentError('REQUEST_CANCELLED', 'the request was cancelled');
export const invalidInput = (message: string, cause?: unknown) =>
  new AgentError('INVALID_INPUT', message, { cause });
export const invalidInputFromIssues = (what: string, issues: readonly $ZodIssue[], cause?: unknown) =>
  new AgentError('INVALID_INPUT', `invalid ${what}: ${formatIssues(issues, what)}`, { cause });
export const requestBlocked = (reason: string) =>
  new AgentError('REQUEST_BLOCKED', `request blocked by hook: ${reason}`);
export const sessionClosed = () => new AgentError('SESSION_CLOSED', 'the session is closed');
export const hookFailed = (pluginId: string, event: string, cause: unknown) =>
  new AgentError('HOOK_FAILED', `plugin '${pluginId}' ${event} hook: ${describeError(cause)}`, {
    cause,
  });
export const memoryFailed = (message: string, cause?: unknown) =>
  new AgentError('MEMORY_FAILED', message, { cause });
/** A bug in the runtime itself (a step or a machine that crashed), never a component's fault. */
export const internal = (message: string, cause?: unknown) =>
  new AgentError('INTERNAL_ERROR', message, { cause });
export const sessionLocked = (id: string) =>
  new AgentError('SESSION_LOCKED', `session '${id}' is open in another tab or agent`);
export const writerReplaced = (id: string) =>
  new AgentError('SESSION_WRITER_REPLACED', `session '${id}' was taken over by another writer`);
export const approvalPending = (callIds: readonly string[]) =>
  new AgentError('APPROVAL_PENDING', `tool calls await approval: ${callIds.join(', ')}`);
export const approvalNotPending = (callId: string) =>
  new AgentError('APPROVAL_NOT_PENDING', `no approval is pending for call '${callId}'`);
export const outputInvalid = (message: string, cause?: unknown) =>
  new AgentError('OUTPUT_INVALID', message, { cause });
export const budgetExceeded = (message: string) => new AgentError('BUDGET_EXCEEDED', message);
export const costUnknown = (modelId: string) =>
  new AgentError(
    'COST_UNKNOWN',
    `model '${modelId}' has no pricing and no server cost: only token budgets apply`,
  );
export const toolSourceUnavailable = (id: string, message: string, cause?: unknown) =>
  new AgentError('TOOL_SOURCE_UNAVAILABLE', `tool source '${id}': ${message}`, { cause });
export const unauthorized = () => new AgentError('UNAUTHORIZED', 'the request is not authorized');
export const serverBusy = (limit: number) =>
  new AgentError('SERVER_BUSY', `this instance holds ${limit} open sessions already`);
