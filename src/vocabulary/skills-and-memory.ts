/**
 * Skills (prompts a user invokes by name) and long-term memories.
 *
 * Each module-scope schema is built inside an arrow call marked `@__PURE__`, so that a bundler
 * drops the ones an app does not use.
 * @module
 */
import * as z from 'zod/mini';
import { matching } from './checks.js';
import { isoTimestamp } from '../iso-timestamp.js';

/** Schema of {@link SkillDefinition}. */
export const SkillDefinitionSchema = /* @__PURE__ */ (() =>
  z.strictObject({
    name: z.string().check(matching(/^\w+$/)),
    description: z.string(),
    prompt: z.string(),
    requiredTools: z.optional(z.array(z.string())),
    /** Listed in the system prompt so the model may use it unasked. Default `true`. */
    allowImplicitInvocation: z.optional(z.boolean()),
  }))();
/** A skill: a prompt injected when the user types `/name`. */
export type SkillDefinition = z.infer<typeof SkillDefinitionSchema>;

/** Schema of {@link Memory}. */
export const MemorySchema = /* @__PURE__ */ (() =>
  z.strictObject({
    id: z.string().check(z.minLength(1)),
    namespace: z.string().check(z.minLength(1)),
    content: z.string(),
    createdAt: isoTimestamp(),
    updatedAt: isoTimestamp(),
    sourceSessionId: z.optional(z.string()),
    tags: z.optional(z.array(z.string())),
  }))();
/** A long-term memory, kept across sessions in a namespace. */
export type Memory = z.infer<typeof MemorySchema>;
