/**
 * Validation at the boundaries: every public input goes through {@link parseInput}, which turns
 * zod issues into an `INVALID_INPUT` {@link AgentError} naming the failing field paths.
 * @module
 */
import * as z from 'zod/mini';
import type { $ZodType, output } from 'zod/v4/core';
import * as Errors from './error-constructors.js';

/**
 * Parses `value` with `schema`; rejects with `INVALID_INPUT` naming `what` and each failing path.
 * Works with schemas of either zod flavour (classic or mini): both share zod 4's core.
 */
export function parseInput<S extends $ZodType>(schema: S, value: unknown, what: string): output<S> {
  const result = z.safeParse(schema, value);
  if (!result.success) throw Errors.invalidInputFromIssues(what, result.error.issues, result.error);
  return result.data;
}
