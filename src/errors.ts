/**
 * `AgentError`: the one error type of the runtime. Every rejection of the public API is one, with
 * a machine-readable `code`, whether it may be `retryable`, the
 * `source` component, and the underlying `cause`.
 * @module
 */
import type { $ZodIssue } from 'zod/v4/core';
import type { AgentErrorCode, AgentErrorData, ErrorSource } from './vocabulary/error-codes.js';

const MARKER = /* @__PURE__ */ Symbol.for('youyou-agent.error');

/** Where an error comes from when its creator does not say. */
function defaultSource(code: AgentErrorCode): ErrorSource {
  switch (code) {
    case 'PROVIDER_ERROR':
      return 'provider';
    case 'TOOL_EXECUTION_ERROR':
    case 'TOOL_TIMEOUT':
    case 'TOOL_NOT_FOUND':
      return 'tool';
    case 'PLUGIN_INIT_FAILED':
    case 'HOOK_FAILED':
      return 'plugin';
    case 'STORAGE_ERROR':
    case 'STORAGE_DUPLICATE':
    case 'SESSION_WRITER_REPLACED':
      return 'storage';
    default:
      return 'agent';
  }
}

/** Options of {@link AgentError}'s constructor. */
export interface AgentErrorOptions {
  /** Whether trying again may succeed. Default `false`. */
  retryable?: boolean;
  /** The component at fault. Default: derived from the code. */
  source?: ErrorSource;
  /** The underlying error. */
  cause?: unknown;
  /** For retryable errors: how long the server asked to wait (`Retry-After`), in ms. */
  retryAfterMs?: number;
}

/**
 * The runtime's error. Its message starts with `[CODE]`.
 * @example
 * throw new AgentError('PROVIDER_ERROR', 'upstream overloaded', { retryable: true });
 * // AgentError: [PROVIDER_ERROR] upstream overloaded
 */
export class AgentError extends Error {
  /** Machine-readable code. */
  readonly code: AgentErrorCode;
  /** Whether trying again may succeed (only retryable provider errors are retried). */
  readonly retryable: boolean;
  /** The component at fault. */
  readonly source: ErrorSource;
  /** How long the server asked to wait before a retry, in ms, when it said so. */
  readonly retryAfterMs: number | undefined;
  /** @internal marker that survives duplicate copies of the package in one bundle. */
  readonly [MARKER] = true;

  constructor(code: AgentErrorCode, message: string, options: AgentErrorOptions = {}) {
    const prefix = `[${code}]`;
    super(message.startsWith(prefix) ? message : `${prefix} ${message}`, { cause: options.cause });
    this.name = 'AgentError';
    this.code = code;
    this.retryable = options.retryable ?? false;
    this.source = options.source ?? defaultSource(code);
    this.retryAfterMs = options.retryAfterMs;
  }

  /** True for any `AgentError`, even one made by another copy of this package. */
  static isInstance(value: unknown): value is AgentError {
    return typeof value === 'object' && value !== null && MARKER in value;
  }

  /** Plain data for the event stream (no stack, no cause). */
  toJSON(): AgentErrorData {
    return { code: this.code, message: this.message, retryable: this.retryable, source: this.source };
  }
}

/** A short, readable description of anything thrown. */
export function describeError(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === 'string') return error;
  try {
    return JSON.stringify(error) ?? String(error);
  } catch {
    return String(error);
  }
}

/** `error` itself when it is an {@link AgentError}; otherwise wrapped with `code`. */
export function toAgentError(
  error: unknown,
  code: AgentErrorCode,
  options: Omit<AgentErrorOptions, 'cause'> = {},
): AgentError {
  if (AgentError.isInstance(error)) return error;
  return new AgentError(code, describeError(error), { ...options, cause: error });
}

/** Renders zod issues as `path: problem` lines, e.g. `config.retry.maxRetries: expected number`. */
export function formatIssues(issues: readonly $ZodIssue[], root?: string): string {
  return issues
    .map((issue) => {
      const path = [root, ...issue.path.map(String)].filter(Boolean).join('.');
      return `${path || '(root)'}: ${describeIssue(issue)}`;
    })
    .join('; ');
}

function describeIssue(issue: $ZodIssue): string {
  switch (issue.code) {
    case 'invalid_type':
      return `expected ${issue.expected}`;
    case 'unrecognized_keys':
      return `unknown key${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `'${k}'`).join(', ')}`;
    case 'too_small':
      return `must be ${issue.inclusive === false ? '>' : '≥'} ${String(issue.minimum)}${issue.origin === 'string' || issue.origin === 'array' ? ` in length` : ''}`;
    case 'too_big':
      return `must be ${issue.inclusive === false ? '<' : '≤'} ${String(issue.maximum)}${issue.origin === 'string' || issue.origin === 'array' ? ` in length` : ''}`;
    case 'invalid_format':
      // A custom message (e.g. the rule a name must follow) says more than the format's name.
      if (issue.message && issue.message !== 'Invalid input') return issue.message;
      return issue.format === 'regex' && 'pattern' in issue
        ? `must match ${String(issue.pattern)}`
        : `invalid ${issue.format}`;
    case 'invalid_value':
      return `expected one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
    case 'invalid_union':
      return 'matches none of the allowed shapes';
    case 'not_multiple_of':
      return `must be a multiple of ${String(issue.divisor)}`;
    default:
      return issue.message && issue.message !== 'Invalid input' ? issue.message : issue.code;
  }
}

/** Constructors per code, so call sites stay short. */
export const Errors = {
  noModelProvider: () => new AgentError('NO_MODEL_PROVIDER', 'at least one ModelProvider is required'),
  nameConflict: (kind: string, name: string) =>
    new AgentError('NAME_CONFLICT', `${kind} name '${name}' is duplicated`),
  skillDependencyNotMet: (skill: string, tool: string) =>
    new AgentError('SKILL_DEPENDENCY_NOT_MET', `skill '${skill}' requires tool '${tool}'`),
  pluginInitFailed: (id: string, cause: unknown) =>
    new AgentError('PLUGIN_INIT_FAILED', `plugin '${id}': ${describeError(cause)}`, { cause }),
  storageDuplicate: (kind: 'session' | 'memory') =>
    new AgentError('STORAGE_DUPLICATE', `${kind} storage registered more than once`),
  invalidDefaultModel: (model: string) =>
    new AgentError('INVALID_DEFAULT_MODEL', `model '${model}' is not registered`),
  sessionBusy: () => new AgentError('SESSION_BUSY', 'a session is already running'),
  turnBusy: () => new AgentError('TURN_BUSY', 'a turn is already running in this session'),
  modelNotSupported: (model: string) =>
    new AgentError('MODEL_NOT_SUPPORTED', `model '${model}' is not supported by any provider`),
  provider: (message: string, options: Omit<AgentErrorOptions, 'source'> = {}) =>
    new AgentError('PROVIDER_ERROR', message, options),
  toolTimeout: (name: string, timeoutMs: number) =>
    new AgentError('TOOL_TIMEOUT', `tool '${name}' timed out after ${timeoutMs}ms`),
  sessionNotFound: (id: string) => new AgentError('SESSION_NOT_FOUND', `session '${id}'`),
  storage: (message: string, cause?: unknown) => new AgentError('STORAGE_ERROR', message, { cause }),
  maxToolCallsExceeded: (limit: number) => new AgentError('MAX_TOOL_CALLS_EXCEEDED', `limit is ${limit}`),
  compact: (message: string, cause?: unknown) => new AgentError('COMPACT_ERROR', message, { cause }),
  requestCancelled: () => new AgentError('REQUEST_CANCELLED', 'the request was cancelled'),
  invalidInput: (message: string, cause?: unknown) => new AgentError('INVALID_INPUT', message, { cause }),
  invalidInputFromIssues: (what: string, issues: readonly $ZodIssue[], cause?: unknown) =>
    new AgentError('INVALID_INPUT', `invalid ${what}: ${formatIssues(issues, what)}`, { cause }),
  requestBlocked: (reason: string) => new AgentError('REQUEST_BLOCKED', `request blocked by hook: ${reason}`),
  sessionClosed: () => new AgentError('SESSION_CLOSED', 'the session is closed'),
  hookFailed: (pluginId: string, event: string, cause: unknown) =>
    new AgentError('HOOK_FAILED', `plugin '${pluginId}' ${event} hook: ${describeError(cause)}`, {
      cause,
    }),
  memoryFailed: (message: string, cause?: unknown) => new AgentError('MEMORY_FAILED', message, { cause }),
  /** A bug in the runtime itself (a step or a machine that crashed), never a component's fault. */
  internal: (message: string, cause?: unknown) => new AgentError('INTERNAL_ERROR', message, { cause }),
  sessionLocked: (id: string) =>
    new AgentError('SESSION_LOCKED', `session '${id}' is open in another tab or agent`),
  writerReplaced: (id: string) =>
    new AgentError('SESSION_WRITER_REPLACED', `session '${id}' was taken over by another writer`),
  approvalPending: (callIds: readonly string[]) =>
    new AgentError('APPROVAL_PENDING', `tool calls await approval: ${callIds.join(', ')}`),
  approvalNotPending: (callId: string) =>
    new AgentError('APPROVAL_NOT_PENDING', `no approval is pending for call '${callId}'`),
  outputInvalid: (message: string, cause?: unknown) => new AgentError('OUTPUT_INVALID', message, { cause }),
  budgetExceeded: (message: string) => new AgentError('BUDGET_EXCEEDED', message),
  costUnknown: (modelId: string) =>
    new AgentError(
      'COST_UNKNOWN',
      `model '${modelId}' has no pricing and no server cost: only token budgets apply`,
    ),
  toolSourceUnavailable: (id: string, message: string, cause?: unknown) =>
    new AgentError('TOOL_SOURCE_UNAVAILABLE', `tool source '${id}': ${message}`, { cause }),
} as const;
