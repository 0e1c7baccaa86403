/**
 * Tools as the model sees them, what they return, and the calls a turn holds.
 *
 * Each module-scope schema is built inside an arrow call marked `@__PURE__`, so that a bundler
 * drops the ones an app does not use.
 * @module
 */
import * as z from 'zod/mini';

/** Schema of {@link ToolOutput}. */
export const ToolOutputSchema = /* @__PURE__ */ (() =>
  z.strictObject({
    content: z.string(),
    isError: z.optional(z.boolean()),
    metadata: z.optional(z.unknown()),
  }))();
/** What a tool returns; `content` is what the model reads. */
export type ToolOutput = z.infer<typeof ToolOutputSchema>;

/** A JSON Schema object, as sent to models for tool parameters. */
export type JsonSchema = { [key: string]: unknown };

/** Schema of {@link ToolSpec}. */
export const ToolSpecSchema = /* @__PURE__ */ (() =>
  z.strictObject({
    name: z.string(),
    description: z.string(),
    parameters: z.record(z.string(), z.unknown()),
  }))();
/** A tool as the model sees it (name, description, JSON Schema of the arguments). */
export type ToolSpec = { name: string; description: string; parameters: JsonSchema };

/**
 * The reserved tool a turn that asks for structured output offers the model: its parameters are
 * the answer's schema, and calling it gives the answer. A registered tool may not take the name.
 */
export const FINAL_ANSWER_TOOL = 'final_answer';

/** One tool call the model asked for, as a turn's pending call (machine context holds these). */
export interface ToolCallRequest extends ToolCallRef {
  /** Raw JSON text, as the model produced it. */
  arguments: string;
}

/**
 * Which call of a response: what the Turn machine keeps of a pending tool call. Its arguments stay
 * out of machine context (snapshots and the inspector never hold the conversation).
 */
export interface ToolCallRef {
  callId: string;
  toolName: string;
}
