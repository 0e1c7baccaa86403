/**
 * What a hook's `continue_with` data must look like, per event.
 * Only the events whose `continue_with` changes something have a schema; for the others the
 * runtime ignores the data, so the chain keeps the original.
 * @module
 */
import * as z from 'zod/mini';
import { integer } from '../vocabulary/checks.js';
import type { $ZodType } from 'zod/v4/core';
import { ChatRequestSchema, ToolOutputSchema } from '../types.js';
import type { HookEvent } from '../types.js';

const toolCallShape = {
  callId: z.string(),
  toolName: z.string(),
  arguments: z.unknown(),
};

/**
 * Schema of the replacement data for each event whose `continue_with` is honoured.
 * `z.object` (not strict) so a handler may spread the payload's data and change one field; the
 * runtime reads only these fields, and keys a handler added are passed on to the next handler.
 */
export const CONTINUE_WITH_SCHEMAS: Partial<Record<HookEvent, $ZodType>> = {
  turn_start: z.array(z.string()),
  before_tool_use: z.object(toolCallShape),
  after_tool_use: z.object({
    ...toolCallShape,
    output: ToolOutputSchema,
    durationMs: z.number().check(z.minimum(0)),
  }),
  pre_request: z.object({
    request: ChatRequestSchema,
    attempt: integer().check(z.minimum(1)),
  }),
};
