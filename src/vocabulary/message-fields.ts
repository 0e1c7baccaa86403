/**
 * The fields each message kind carries, shared by the context history's messages and the stored
 * session events (same shapes). Internal: not re-exported.
 *
 * Each module-scope schema is built inside an arrow call marked `@__PURE__`, so that a bundler
 * drops the ones an app does not use.
 * @module
 */
import * as z from 'zod/mini';
import { ContentBlockSchema, MessageStatusSchema } from './content.js';

export const userFields = /* @__PURE__ */ (() => ({ content: z.array(ContentBlockSchema) }))();
export const assistantFields = /* @__PURE__ */ (() => ({
  content: z.array(ContentBlockSchema),
  status: MessageStatusSchema,
}))();
export const toolCallFields = /* @__PURE__ */ (() => ({
  callId: z.string(),
  toolName: z.string(),
  /** Parsed JSON arguments, or the raw string when the model sent invalid JSON. */
  arguments: z.unknown(),
}))();
export const toolResultFields = /* @__PURE__ */ (() => ({
  callId: z.string(),
  content: z.string(),
  isError: z.boolean(),
}))();
export const systemFields = /* @__PURE__ */ (() => ({ content: z.string() }))();
