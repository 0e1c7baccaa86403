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
 * The runtime's error. Its `message` is the sentence alone; the code is in `code`.
 * @example
 * throw new AgentError('PROVIDER_ERROR', 'upstream overloaded', { retryable: true });
 * // AgentError: upstream overloaded   (error.code === 'PROVIDER_ERROR')
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
    // A message written with its own `[CODE] ` prefix (older callers) keeps the sentence alone.
    const prefix = `[${code}] `;
    super(message.startsWith(prefix) ? message.slice(prefix.length) : message, { cause: options.cause });
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
