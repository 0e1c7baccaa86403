/**
 * What users and assistants say, and the entries of a session's context history: content blocks,
 * a user's input, a message's status, and the messages.
 *
 * Each module-scope schema is built inside an arrow call marked `@__PURE__`, so that a bundler
 * drops the ones an app does not use.
 * @module
 */
import * as z from 'zod/mini';
import { matching } from './checks.js';

/** Schema of {@link ContentBlock}. */
export const ContentBlockSchema = /* @__PURE__ */ (() =>
  z.discriminatedUnion('type', [
    z.strictObject({ type: z.literal('text'), text: z.string() }),
    z.strictObject({
      type: z.literal('image'),
      /** Base64 data, without a `data:` prefix. */
      data: z.string().check(z.minLength(1)),
      /** e.g. `image/png`. */
      mediaType: z.string().check(matching(/^image\/[\w.+-]+$/)),
    }),
  ]))();
/** One piece of user or assistant content: text, or a base64 image. */
export type ContentBlock = z.infer<typeof ContentBlockSchema>;

/** Schema of {@link UserInput}: at least one block. */
export const UserInputSchema = /* @__PURE__ */ (() =>
  z.strictObject({
    content: z.array(ContentBlockSchema).check(z.minLength(1)),
  }))();
/** What a user sends in one turn (text and images). `sendMessage` also accepts a plain string. */
export type UserInput = z.infer<typeof UserInputSchema>;

/** Schema of {@link MessageStatus}. */
export const MessageStatusSchema = /* @__PURE__ */ (() => z.enum(['complete', 'incomplete']))();
/** `incomplete`: the assistant message was cut short (cancel, or a failure after output). */
export type MessageStatus = z.infer<typeof MessageStatusSchema>;

/** Schema of {@link ProviderItems}. */
export const ProviderItemsSchema = /* @__PURE__ */ (() =>
  z.strictObject({
    provider: z.string(),
    model: z.string(),
    // Read-only to its users (the items are the server's, sent back as they are); checked as a list.
    items: z.array(z.unknown()) as unknown as z.ZodMiniType<readonly unknown[]>,
  }))();
/**
 * A provider's own record of one response (e.g. the Responses API's output items, reasoning
 * included), opaque to the runtime: stored with the assistant message so that the provider can
 * send it back exactly. Only the provider `provider` uses it, and only for model `model`.
 */
export type ProviderItems = z.infer<typeof ProviderItemsSchema>;

/** @internal The fields each message kind carries; the stored session events reuse them (same shapes). */
export const userFields = /* @__PURE__ */ (() => ({ content: z.array(ContentBlockSchema) }))();
export const assistantFields = /* @__PURE__ */ (() => ({
  content: z.array(ContentBlockSchema),
  status: MessageStatusSchema,
  providerItems: z.optional(ProviderItemsSchema),
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
