/**
 * The codes and sources an `AgentError` carries, and the error as plain data (as it travels in
 * `error` events). Below `errors.ts`, which builds the error class on them.
 *
 * Each module-scope schema is built inside an arrow call marked `@__PURE__`, so that a bundler
 * drops the ones an app does not use.
 * @module
 */
import * as z from 'zod/mini';

/** All error codes an {@link AgentError} can carry. */
export const AGENT_ERROR_CODES = [
  'NO_MODEL_PROVIDER',
  'NAME_CONFLICT',
  'SKILL_DEPENDENCY_NOT_MET',
  'PLUGIN_INIT_FAILED',
  'STORAGE_DUPLICATE',
  'INVALID_DEFAULT_MODEL',
  'SESSION_BUSY',
  'TURN_BUSY',
  'MODEL_NOT_SUPPORTED',
  'PROVIDER_ERROR',
  'TOOL_EXECUTION_ERROR',
  'TOOL_TIMEOUT',
  'TOOL_NOT_FOUND',
  'SKILL_NOT_FOUND',
  'SESSION_NOT_FOUND',
  'STORAGE_ERROR',
  'MAX_TOOL_CALLS_EXCEEDED',
  'COMPACT_ERROR',
  'REQUEST_CANCELLED',
  'INVALID_INPUT',
  'REQUEST_BLOCKED',
  'SESSION_CLOSED',
  'HOOK_FAILED',
  'MEMORY_FAILED',
  'INTERNAL_ERROR',
  'SESSION_LOCKED',
  'SESSION_WRITER_REPLACED',
  'APPROVAL_PENDING',
  'APPROVAL_NOT_PENDING',
  'OUTPUT_INVALID',
  'BUDGET_EXCEEDED',
  'COST_UNKNOWN',
  'TOOL_SOURCE_UNAVAILABLE',
  'UNAUTHORIZED',
  'SERVER_BUSY',
  'RECOVERY_EXHAUSTED',
] as const;
/** Schema of {@link AgentErrorCode}. */
export const AgentErrorCodeSchema = /* @__PURE__ */ (() => z.enum(AGENT_ERROR_CODES))();
/** A machine-readable error code, e.g. `'TURN_BUSY'`. */
export type AgentErrorCode = z.infer<typeof AgentErrorCodeSchema>;

/** Which component an error came from. */
export const ErrorSourceSchema = /* @__PURE__ */ (() =>
  z.enum(['provider', 'tool', 'plugin', 'storage', 'agent']))();
/** Which component an error came from. */
export type ErrorSource = z.infer<typeof ErrorSourceSchema>;

/** Schema of {@link AgentErrorData}. */
export const AgentErrorDataSchema = /* @__PURE__ */ (() =>
  z.strictObject({
    code: AgentErrorCodeSchema,
    message: z.string(),
    retryable: z.boolean(),
    source: ErrorSourceSchema,
  }))();
/** An {@link AgentError} as plain data, as it travels in `error` events. */
export type AgentErrorData = z.infer<typeof AgentErrorDataSchema>;
