/**
 * What the memory prompts share: reading the JSON object out of a model's answer, the shape of a
 * memory the model proposes, and turning one into a stored {@link Memory}.
 * @module
 */
import * as z from 'zod/mini';
import type { Clock } from '../clock.js';
import { generateId } from '../ids.js';
import type { Memory } from '../types.js';

/** A memory as the model writes it: `{ "content": string, "tags"?: string[] }`. */
export const MemoryDraftSchema = z.strictObject({
  content: z.string().check(z.minLength(1)),
  tags: z.optional(z.array(z.string())),
});
export type MemoryDraft = z.infer<typeof MemoryDraftSchema>;

/** The JSON object inside a model answer (tolerates a Markdown code fence around it). */
export function parseJsonAnswer(text: string): unknown {
  const fenced = /```(?:json)?\s*([\s\S]*?)```/.exec(text);
  const body = (fenced ? fenced[1]! : text).trim();
  const start = body.indexOf('{');
  const end = body.lastIndexOf('}');
  if (start < 0 || end < start) throw new Error('the answer holds no JSON object');
  return JSON.parse(body.slice(start, end + 1));
}

/**
 * A new memory of `namespace` from `draft`, written by session `sessionId` now (by `clock`). The
 * time is formatted here rather than by `isoNow`: this work is loaded by `import()`, and each
 * module it imports is one more a bundler without code splitting wraps in a lazy initialiser.
 */
export function newMemory(draft: MemoryDraft, namespace: string, sessionId: string, clock: Clock): Memory {
  const now = new Date(clock.now()).toISOString();
  return {
    id: generateId(),
    namespace,
    content: draft.content,
    createdAt: now,
    updatedAt: now,
    sourceSessionId: sessionId,
    ...(draft.tags !== undefined && { tags: draft.tags }),
  };
}
