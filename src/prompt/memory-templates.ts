/**
 * The texts of memory extraction and consolidation: their system prompts and the user messages
 * they send. Apart from the other prompt texts, so they load with the memory work, which an
 * agent without memory config never runs.
 * @module
 */

/**
 * System prompt of memory extraction. The model must answer with exactly
 * `{"memories":[{"content":string,"tags"?:string[]}]}`.
 */
export const MEMORY_EXTRACTION_PROMPT = `You extract long-term memories from a conversation between a user and an assistant. A memory is a short fact that will still be useful in future, unrelated sessions with the same user.

Good memories: lasting preferences (language, tone, formats, tools), facts about the user's environment, projects and conventions, and decisions meant to hold beyond this session.
Not memories: one-off tasks, transient states, content the assistant produced, secrets (passwords, keys, tokens) and anything already listed as a known memory.

Write each memory as one self-contained sentence in the third person ("The user prefers ..."). Add a few lowercase tags when they help to find it later.

Answer with JSON only, no prose and no code fence, in exactly this shape:
{"memories":[{"content":"...","tags":["..."]}]}
"tags" is optional. If there is nothing worth remembering, answer {"memories":[]}.`;

/**
 * The user message of memory extraction; `{{existing_memories}}` and `{{transcript}}` are
 * replaced (see {@link renderMemoryExtractionInput}).
 */
export const MEMORY_EXTRACTION_INPUT_TEMPLATE = `Known memories (do not repeat these):
{{existing_memories}}

Conversation:
{{transcript}}

Extract the new memories from this conversation as JSON.`;

/** Fills {@link MEMORY_EXTRACTION_INPUT_TEMPLATE}; an empty memory list reads "(none)". */
export function renderMemoryExtractionInput(input: {
  transcript: string;
  existingMemories: readonly string[];
}): string {
  const existing =
    input.existingMemories.length > 0 ? input.existingMemories.map((m) => `- ${m}`).join('\n') : '(none)';
  // One pass, so a placeholder inside the transcript or a memory is left alone (and a function
  // replacement, so `$` sequences are not interpreted).
  const values: Record<string, string> = { existing_memories: existing, transcript: input.transcript };
  return MEMORY_EXTRACTION_INPUT_TEMPLATE.replace(
    /\{\{(existing_memories|transcript)\}\}/g,
    (_, key: string) => values[key]!,
  );
}

/**
 * System prompt of memory consolidation. The model must answer with exactly
 * `{"memories":[{"content":string,"tags"?:string[]}],"delete":[string]}`: the memories to add,
 * and the ids of the listed memories to remove.
 */
export const MEMORY_CONSOLIDATION_PROMPT = `You maintain the long-term memories an assistant keeps about a user: short facts remembered from earlier sessions, each with an id. The list has grown too long. Make it shorter and cleaner without losing anything that is still useful.

- Merge memories that say the same thing, or that are about the same subject, into one memory.
- When memories contradict each other, keep what the newest one (by updatedAt) says.
- Drop memories that are no longer useful: one-off tasks, states that have surely changed, and secrets (passwords, keys, tokens).
- Leave every other memory alone: do not mention it in your answer.

Write each new memory as one self-contained sentence in the third person ("The user prefers ..."). Add a few lowercase tags when they help to find it later.

Answer with JSON only, no prose and no code fence, in exactly this shape:
{"memories":[{"content":"...","tags":["..."]}],"delete":["..."]}
"memories" holds only the new memories (the merged or rewritten ones), "delete" the id of every listed memory that they replace or that should be dropped. Use only ids from the list. "tags" is optional. If nothing should change, answer {"memories":[],"delete":[]}.`;

/**
 * The user message of memory consolidation; `{{count}}` and `{{memories}}` are replaced (see
 * {@link renderMemoryConsolidationInput}).
 */
export const MEMORY_CONSOLIDATION_INPUT_TEMPLATE = `The memories ({{count}}), newest first, one JSON object per line:
{{memories}}

Consolidate them and answer as JSON.`;

/**
 * Fills {@link MEMORY_CONSOLIDATION_INPUT_TEMPLATE}: one JSON line per memory with its `id`,
 * `content`, `tags` (when it has some) and `updatedAt`, so the model can name what to delete.
 */
export function renderMemoryConsolidationInput(
  memories: readonly { id: string; content: string; tags?: readonly string[]; updatedAt: string }[],
): string {
  const lines = memories.map(({ id, content, tags, updatedAt }) =>
    JSON.stringify({ id, content, ...(tags !== undefined && tags.length > 0 && { tags }), updatedAt }),
  );
  const values: Record<string, string> = { count: String(memories.length), memories: lines.join('\n') };
  // One pass, so a placeholder inside a memory is left alone (and a function replacement, so `$`
  // sequences are not interpreted).
  return MEMORY_CONSOLIDATION_INPUT_TEMPLATE.replace(
    /\{\{(count|memories)\}\}/g,
    (_, key: string) => values[key]!,
  );
}
