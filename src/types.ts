/**
 * The runtime's values: every type of the public contract as a `zod/mini` schema
 * with its inferred type beside it. The library validates with `zod/mini` (≈4 kB gzipped instead
 * of classic zod's ≈92 kB); both flavours share zod 4's core, so user schemas may use either.
 *
 * The values live in `vocabulary/`, one file per concept, in the order a reader meets them; this
 * file gathers them so that one import reaches everything that crosses a boundary. The two files
 * that also hold building blocks of the others (the message fields, the count schema) are
 * re-exported by name, so those stay internal. (Each module costs an app's bundle a few bytes,
 * hence few and whole concepts rather than one file per schema.)
 * @module
 */
export * from './vocabulary/error-codes.js';
export {
  ContentBlockSchema,
  type ContentBlock,
  UserInputSchema,
  type UserInput,
  MessageStatusSchema,
  type MessageStatus,
  MessageSchema,
  type Message,
  ProviderItemsSchema,
  type ProviderItems,
} from './vocabulary/messages.js';
export { TokenUsageSchema, type TokenUsage, ZERO_USAGE, addUsage } from './vocabulary/usage.js';
export * from './vocabulary/tools.js';
export * from './vocabulary/models.js';
export * from './vocabulary/skills-and-memory.js';
export * from './vocabulary/sessions.js';
export * from './vocabulary/agent-events.js';
export * from './vocabulary/hooks.js';
export type * from './vocabulary/turns.js';
