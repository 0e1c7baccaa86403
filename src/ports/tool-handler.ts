import * as z from 'zod/mini';
import type { $ZodType, output } from 'zod/v4/core';
import type { JsonSchema, ToolOutput } from '../types.js';

/** What a tool's `execute` receives. */
/** What a tool's name must match: what model APIs accept. */
export const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

export interface ToolExecuteInput<A> {
  /** The model's id for this call. */
  callId: string;
  /** Arguments, parsed from JSON and validated by the tool's schema. */
  arguments: A;
  sessionId: string;
  turnId: string;
  /** Aborts when the call times out, so a cooperative tool stops. (A cancelled turn lets started tools finish.) */
  signal: AbortSignal;
}

/**
 * A tool the model may call.
 *
 * `execute` may return a string (the content) or a {@link ToolOutput}; a throw becomes an error
 * result the model reads, never an exception out of the turn.
 */
export interface ToolHandler<A = unknown> {
  /** `^[a-zA-Z0-9_-]{1,64}$` (what OpenAI accepts); unique per agent. */
  name: string;
  /** Tells the model when and how to use the tool. */
  description: string;
  /** zod schema (classic or mini) of the arguments; the JSON Schema sent to models is derived. */
  parameters: $ZodType<A>;
  /** A mutating tool makes its whole batch run serially, in call order. Default `false`. */
  mutating?: boolean;
  /**
   * Safe to run again after a crash: a mutating call that may have run when its server stopped
   * runs again on recovery instead of answering "outcome unknown" (an upsert by key, a payment
   * with an idempotency key). Default `false`.
   */
  idempotent?: boolean;
  /**
   * Whether a call waits for a human decision (`turn.approve` / `turn.deny`) before it runs.
   * Asked after the arguments are validated. Default `false`.
   */
  needsApproval?: boolean | ApprovalCheck<A>;
  /** Runs one call. */
  execute(input: ToolExecuteInput<A>): Promise<ToolOutput | string>;
}

/** What an approval decision is asked about. */
export interface ApprovalQuery<A = unknown> {
  callId: string;
  toolName: string;
  /** Validated arguments. */
  arguments: A;
  sessionId: string;
  turnId: string;
}

/**
 * Decides whether a call needs approval. (Declared as a method's type so that a tool of any
 * argument type is still a `ToolHandler<unknown>`, as `execute` is.)
 */
export type ApprovalCheck<A> = {
  check(query: ApprovalQuery<A>): boolean | Promise<boolean>;
}['check'];

/** What {@link defineTool} takes. */
export interface ToolDefinition<S extends $ZodType> {
  name: string;
  description: string;
  parameters: S;
  mutating?: boolean;
  /** Safe to run again after a crash (see {@link ToolHandler.idempotent}). */
  idempotent?: boolean;
  /** Whether a call waits for `turn.approve` / `turn.deny`; a function sees the validated arguments. */
  needsApproval?: boolean | ApprovalCheck<output<S>>;
  execute(input: ToolExecuteInput<output<S>>): Promise<ToolOutput | string> | ToolOutput | string;
}

/**
 * Why `value` cannot be a tool's `parameters`, or `undefined` when it can (a zod 4 schema, classic
 * or mini). A zod 3 schema gets its own message: its API differs, so nothing here can read it.
 * (`AgentBuilder.build()` checks every tool with it.)
 * @example
 * parametersSchemaProblem(z.object({ city: z.string() })); // undefined
 */
export function parametersSchemaProblem(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return 'must be a zod schema';
  if ('_zod' in value) return undefined;
  if ('_def' in value && 'safeParse' in value) {
    return "is a zod 3 schema; zod 4 is needed (with zod 3.25, import it from 'zod/v4')";
  }
  return 'must be a zod schema';
}

/**
 * Defines a tool whose argument type is inferred from its zod schema (zod 4, classic or mini;
 * `AgentBuilder.build()` rejects anything else with `INVALID_INPUT`).
 * @example
 * const weather = defineTool({
 *   name: 'get_weather',
 *   description: 'Current weather of a city',
 *   parameters: z.object({ city: z.string() }),
 *   execute: async ({ arguments: { city } }) => `Sunny in ${city}`,
 * });
 * // A tool that asks the user first, for some arguments only:
 * const remove = defineTool({
 *   name: 'delete_file',
 *   description: 'Deletes a file',
 *   parameters: z.object({ path: z.string() }),
 *   mutating: true,
 *   needsApproval: ({ arguments: { path } }) => !path.startsWith('/tmp/'),
 *   execute: async ({ arguments: { path } }) => `deleted ${path}`,
 * });
 */
export function defineTool<S extends $ZodType>(definition: ToolDefinition<S>): ToolHandler<output<S>> {
  const { execute } = definition;
  const tool: ToolHandler<output<S>> = {
    name: definition.name,
    description: definition.description,
    parameters: definition.parameters as $ZodType<output<S>>,
    execute: async (input) => execute(input),
  };
  if (definition.mutating !== undefined) tool.mutating = definition.mutating;
  if (definition.idempotent !== undefined) tool.idempotent = definition.idempotent;
  if (definition.needsApproval !== undefined) tool.needsApproval = definition.needsApproval;
  return tool;
}

/**
 * The JSON Schema of a tool's arguments, as sent to models (the schema's *input* side, since
 * that is what the model writes). Throws when the schema cannot be expressed in JSON Schema.
 */
export function toolParametersJsonSchema(tool: Pick<ToolHandler, 'parameters'>): JsonSchema {
  const { $schema: _ignored, ...schema } = z.toJSONSchema(tool.parameters, { io: 'input' }) as JsonSchema;
  return schema;
}
