/**
 * What users and assistants say: content blocks, a user's input, a message's status.
 *
 * Each module-scope schema is built inside an arrow call marked `@__PURE__`, so that a bundler
 * drops the ones an app does not use.
 * @module
 */
import * as z from 'zod/mini';

/** Schema of {@link ContentBlock}. */
export const ContentBlockSchema = /* @__PURE__ */ (() =>
  z.discriminatedUnion('type', [
    z.strictObject({ type: z.literal('text'), text: z.string() }),
    z.strictObject({
      type: z.literal('image'),
      /** Base64 data, without a `data:` prefix. */
      data: z.string().check(z.minLength(1)),
      /** e.g. `image/png`. */
      mediaType: z.string().check(z.regex(/^image\/[\w.+-]+$/)),
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
