/**
 * Models and the requests to them: model info and pricing, a chat request, a provider's stream events.
 *
 * Each module-scope schema is built inside an arrow call marked `@__PURE__`, so that a bundler
 * drops the ones an app does not use.
 * @module
 */
import * as z from 'zod/mini';
import { integer } from './checks.js';
import { MessageSchema, ProviderItemsSchema, type Message } from './messages.js';
import { ToolSpecSchema, type ToolSpec } from './tools.js';
import { nonNegativeInt, TokenUsageSchema } from './usage.js';

// In a module of their own, so that what validates a provider's options (the OpenAI provider's
// config, loaded by `import()`) does not pull in the message and tool schemas.
export { ModelInfoSchema, ModelPricingSchema, type ModelInfo, type ModelPricing } from './model-info.js';

/** Schema of {@link ChatPurpose}. */
export const ChatPurposeSchema = /* @__PURE__ */ (() =>
  z.enum(['turn', 'compaction', 'memory_extraction', 'memory_consolidation']))();
/** Why the runtime calls the model. */
export type ChatPurpose = z.infer<typeof ChatPurposeSchema>;

/** Schema of {@link ChatRequest}. */
export const ChatRequestSchema = /* @__PURE__ */ (() =>
  z.strictObject({
    model: z.string(),
    systemPrompt: z.string(),
    messages: z.array(MessageSchema),
    tools: z.array(ToolSpecSchema),
    maxOutputTokens: z.optional(integer().check(z.minimum(1))),
    purpose: ChatPurposeSchema,
  }))();
/** One request to a {@link ModelProvider}. */
export type ChatRequest = {
  model: string;
  systemPrompt: string;
  messages: Message[];
  tools: ToolSpec[];
  maxOutputTokens?: number;
  purpose: ChatPurpose;
};

/** Schema of {@link ChatEvent}. */
export const ChatEventSchema = /* @__PURE__ */ (() =>
  z.discriminatedUnion('type', [
    z.strictObject({ type: z.literal('text_delta'), text: z.string() }),
    z.strictObject({ type: z.literal('reasoning_delta'), text: z.string() }),
    z.strictObject({
      type: z.literal('tool_call'),
      callId: z.string(),
      toolName: z.string(),
      /** Raw JSON text, exactly as the model produced it. */
      arguments: z.string(),
    }),
    z.strictObject({
      type: z.literal('usage'),
      usage: TokenUsageSchema,
      cost: z.optional(z.number()),
    }),
    z.strictObject({
      type: z.literal('done'),
      finishReason: z.string(),
      /** The provider's id of the response, and the model that answered, when the wire says. */
      responseId: z.optional(z.string()),
      responseModel: z.optional(z.string()),
    }),
    // Optional: the response's own items, stored on its assistant message (`providerItems`).
    z.strictObject({ type: z.literal('response_items'), ...ProviderItemsSchema.def.shape }),
    // Optional: a piece of a tool call's arguments as it streams (the complete `tool_call` follows).
    z.strictObject({
      type: z.literal('tool_call_delta'),
      index: nonNegativeInt(),
      callId: z.optional(z.string()),
      toolName: z.optional(z.string()),
      argumentsDelta: z.string(),
    }),
  ]))();
/** One event of a provider's stream. A tool call arrives whole; `done` ends the response. */
export type ChatEvent = z.infer<typeof ChatEventSchema>;
