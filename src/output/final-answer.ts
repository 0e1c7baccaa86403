/**
 * Structured output through a reserved tool: the turn offers `final_answer`, whose parameters are
 * the answer's schema, and the model answers by calling it. This module prepares the tool for a
 * schema and checks a call's arguments against it. A schema whose JSON Schema is not an object
 * (an array, a string, a union) is wrapped as `{ value: <schema> }`: function parameters must be
 * an object.
 * @module
 */
import * as z from 'zod/mini';
import { $ZodAsyncError, type $ZodIssue, type $ZodType } from 'zod/v4/core';
import { describeError } from '../errors.js';
import * as Errors from '../error-constructors.js';
import { parametersSchemaProblem } from '../ports/tool-handler.js';
import { parseJsonArguments } from '../tools/parse-arguments.js';
import { FINAL_ANSWER_TOOL, type JsonSchema, type ToolSpec } from '../types.js';
import * as OutputTexts from './output-texts.js';

export { FINAL_ANSWER_TOOL };

/**
 * What `sendMessage(input, { output })` asks for: an answer that matches `schema`.
 * @example
 * const turn = await session.sendMessage('Plan a day in Kyoto', {
 *   output: { schema: z.object({ title: z.string(), stops: z.array(z.string()) }), name: 'day_plan' },
 * });
 * const { output } = await turn.result; // { title: string; stops: string[] } | undefined
 */
export interface OutputOptions<T> {
  /** The answer's schema (zod 4, classic or mini); the `final_answer` tool's parameters. */
  schema: $ZodType<T>;
  /** What the answer is, named in the tool's description (e.g. `'trip_plan'`). */
  name?: string;
  /** Repair rounds after an invalid answer before the turn fails with `OUTPUT_INVALID`. Default `1`. */
  maxRepairs?: number;
}

/** A turn's output request, ready to use. */
export interface PreparedOutput {
  schema: $ZodType;
  /** The `final_answer` tool as the model sees it. */
  spec: ToolSpec;
  /** Whether the schema is wrapped as `{ value }`. */
  wrapped: boolean;
  maxRepairs: number;
}

/** The outcome of checking one `final_answer` call. */
export type AnswerCheck = { ok: true; output: unknown } | { ok: false; problem: string };

type ParseResult = { success: true; data: unknown } | { success: false; error: { issues: $ZodIssue[] } };

/** Checks `options` and prepares its tool. Throws `INVALID_INPUT` for bad options. */
export function prepareOutput(options: OutputOptions<unknown>): PreparedOutput {
  if (typeof options !== 'object' || options === null)
    throw Errors.invalidInput('invalid output: expected an object');
  const problem = parametersSchemaProblem(options.schema);
  if (problem) throw Errors.invalidInput(`invalid output.schema: ${problem}`);
  const { name, maxRepairs = 1 } = options;
  if (name !== undefined && (typeof name !== 'string' || name === ''))
    throw Errors.invalidInput('invalid output.name: expected a non-empty string');
  if (!Number.isSafeInteger(maxRepairs) || maxRepairs < 0)
    throw Errors.invalidInput(
      `invalid output.maxRepairs: expected a non-negative integer, got ${String(maxRepairs)}`,
    );
  let schema: JsonSchema;
  try {
    schema = z.toJSONSchema(options.schema, { io: 'input' }) as JsonSchema;
    delete schema['$schema'];
  } catch (error) {
    throw Errors.invalidInput(
      `invalid output.schema: JSON Schema cannot express it (${describeError(error)})`,
      error,
    );
  }
  const wrapped = schema['type'] !== 'object';
  const parameters: JsonSchema = wrapped
    ? { type: 'object', properties: { value: schema }, required: ['value'], additionalProperties: false }
    : schema;
  return {
    schema: options.schema,
    spec: { name: FINAL_ANSWER_TOOL, description: OutputTexts.toolDescription(name), parameters },
    wrapped,
    maxRepairs,
  };
}

/** The answer a (partial) argument object stands for: its `value` when the schema is wrapped. */
export function unwrapAnswer(output: PreparedOutput, args: unknown): unknown {
  if (!output.wrapped) return args;
  return typeof args === 'object' && args !== null ? (args as { value?: unknown }).value : undefined;
}

/** Checks a `final_answer` call's raw arguments against the schema. */
export async function checkAnswer(output: PreparedOutput, raw: string): Promise<AnswerCheck> {
  const parsed = parseJsonArguments(raw);
  if (!parsed.ok) return { ok: false, problem: OutputTexts.invalidJson(parsed.problem) };
  const value = unwrapAnswer(output, parsed.value);
  const checked = (result: ParseResult): AnswerCheck =>
    result.success
      ? { ok: true, output: result.data }
      : { ok: false, problem: OutputTexts.invalidAnswer(result.error.issues, output.wrapped) };
  try {
    try {
      return checked(z.safeParse(output.schema, value));
    } catch (error) {
      if (!(error instanceof $ZodAsyncError)) throw error;
    }
    return checked(await z.safeParseAsync(output.schema, value));
  } catch (error) {
    return { ok: false, problem: OutputTexts.validationFailed(error) };
  }
}
