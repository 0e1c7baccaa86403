/**
 * The texts of the error results the model reads when a tool call cannot run or fails. Each names
 * the tool and the problem so the model can correct itself on the next request. One export each
 * (callers import the module as `ToolResultTexts`: a bundler then renames each, which it cannot
 * do for an object's keys).
 * @module
 */
import type { $ZodIssue } from 'zod/v4/core';
import { describeError, formatIssues } from '../errors.js';

/** The result of a call not started because the turn was cancelled. */
export const TOOL_CALL_SKIPPED_TEXT = 'Tool call skipped: the turn was cancelled before it started.';

/** The result a call shows while its turn is interrupted (a reload cut it off); derived, not stored. */
export const TOOL_CALL_INTERRUPTED_TEXT =
  'Tool call interrupted: the page was closed before this call finished.';

/** The result of a mutating call that may have run when the page closed (never re-run silently). */
export const TOOL_OUTCOME_UNKNOWN_TEXT =
  'Tool outcome unknown: the page was closed while it ran; it may or may not have taken effect.';

/** How every denial result starts (the conversation tells denied calls by it). */
export const TOOL_CALL_DENIED_PREFIX = 'Tool call denied';

/** The result of a call not started because the turn failed first. */
export const TOOL_CALL_NOT_RUN_TEXT = 'Tool call not run: the turn failed before it started.';

/** The model named a tool that is not registered. */
export const unknownTool = (name: string, available: readonly string[]): string =>
  `Unknown tool '${name}'. ` +
  (available.length > 0 ? `Available tools: ${available.join(', ')}.` : 'No tools are available.');

/** The arguments are not valid JSON. */
export const invalidJson = (name: string, error: unknown): string =>
  `Invalid arguments for tool '${name}': not valid JSON (${describeError(error)}). ` +
  'Send the arguments as one JSON object.';

/** The arguments do not match the tool's schema; lists each failing path. */
export const invalidArguments = (name: string, issues: readonly $ZodIssue[]): string =>
  `Invalid arguments for tool '${name}': ${formatIssues(issues)}`;

/** The arguments a `before_tool_use` hook put in place do not match the schema. */
export const invalidReplacedArguments = (name: string, issues: readonly $ZodIssue[]): string =>
  `Invalid arguments for tool '${name}' (as replaced by a before_tool_use hook): ${formatIssues(issues)}`;

/** The schema itself failed while validating (e.g. a refinement threw). */
export const validationFailed = (name: string, error: unknown): string =>
  `Could not validate the arguments of tool '${name}': ${describeError(error)}`;

/** A `before_tool_use` handler aborted the call (a fixed text plugins may match on). */
export const abortedByHook = (reason: string): string => `Tool aborted by hook: ${reason}`;

/** The call ran past the tool timeout (a fixed text plugins may match on). */
export const timedOut = (timeoutMs: number): string => `Tool timed out after ${timeoutMs}ms`;

/** The user denied the call (or a rule the user set for the session did). */
export const deniedByUser = (reason?: string): string =>
  `Tool call denied by the user${reason ? `: ${reason}` : '.'}`;

/** The agent's approval policy denied the call. */
export const deniedByPolicy = (reason?: string): string =>
  `Tool call denied by policy${reason ? `: ${reason}` : '.'}`;

/** Nobody decided within the approval timeout. */
export const approvalTimedOut = (): string => 'Tool call denied: approval timed out before anyone decided.';

/** The same call (tool and arguments) was already made `times` times in this turn (`maxRepeatedToolCalls`). */
export const repeated = (times: number): string =>
  `Tool call not run: the same call was made ${times} times in this turn already; its results are above.`;

/** `execute` threw or rejected. */
export const failed = (name: string, error: unknown): string =>
  `Tool '${name}' failed: ${describeError(error)}`;

/** `execute` resolved with something that is neither a string nor a ToolOutput. */
export const invalidOutput = (name: string): string =>
  `Tool '${name}' returned an invalid result: expected a string or { content: string }.`;
