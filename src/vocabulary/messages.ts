/**
 * The entries of a session's context history.
 *
 * Each module-scope schema is built inside an arrow call marked `@__PURE__`, so that a bundler
 * drops the ones an app does not use.
 * @module
 */
import * as z from 'zod/mini';
import {
  assistantFields,
  systemFields,
  toolCallFields,
  toolResultFields,
  userFields,
} from './message-fields.js';

/** Schema of {@link Message}. */
export const MessageSchema = /* @__PURE__ */ (() =>
  z.discriminatedUnion('type', [
    z.strictObject({ type: z.literal('user'), ...userFields }),
    z.strictObject({ type: z.literal('assistant'), ...assistantFields }),
    z.strictObject({ type: z.literal('tool_call'), ...toolCallFields }),
    z.strictObject({ type: z.literal('tool_result'), ...toolResultFields }),
    z.strictObject({ type: z.literal('system'), ...systemFields }),
  ]))();
/** One entry of a session's context history. */
export type Message = z.infer<typeof MessageSchema>;
