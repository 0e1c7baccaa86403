/**
 * What the model reads about its structured answer: the `final_answer` tool's description, the
 * result of an accepted answer, and the repair texts that say what was wrong with an invalid one.
 * One export each (callers import the module as `OutputTexts`: a bundler then renames each, which
 * it cannot do for an object's keys).
 * @module
 */
import type { $ZodIssue } from 'zod/v4/core';
import { describeError, formatIssues } from '../errors.js';

/** The `final_answer` tool's description. */
export const toolDescription = (name: string | undefined): string =>
  `Give the final answer${name ? ` (${name})` : ''} of this turn: call this tool once, with the ` +
  'answer as its arguments, instead of answering in text.';

/** The result of an accepted `final_answer` call. */
export const accepted = 'Output accepted.';

/** The arguments are not JSON. */
export const invalidJson = (error: unknown): string =>
  `Invalid final answer: the arguments are not valid JSON (${describeError(error)}). ` +
  'Call final_answer again with the whole answer as one JSON object.';

/** The arguments do not match the schema; lists each failing path. */
export const invalidAnswer = (issues: readonly $ZodIssue[], wrapped: boolean): string =>
  `Invalid final answer: ${formatIssues(issues, wrapped ? 'value' : undefined)}. ` +
  'Call final_answer again with arguments that match its schema.';

/** The schema threw while validating. */
export const validationFailed = (error: unknown): string =>
  `Invalid final answer: it could not be validated (${describeError(error)}).`;

/** The model answered in text (or not at all) instead of calling the tool: a system note. */
export const textInsteadOfCall =
  'This turn needs a structured answer: call the final_answer tool with the answer as its ' +
  'arguments instead of answering in text.';

/** Another call of the response that called `final_answer`. */
export const notRunBesideAnswer =
  'Tool call not run: final_answer was called in the same response. Call tools before giving the final answer.';

/** The `OUTPUT_INVALID` message. */
export const outputInvalid = (repairs: number, problem: string): string =>
  `the model gave no valid final answer (${repairs} repair round${repairs === 1 ? '' : 's'} used): ${problem}`;
