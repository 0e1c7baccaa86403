/**
 * The runtime's own prompt texts: the
 * compaction prompt, the summary prefix, the skills and plugins sections, memory instructions,
 * and the system notes the turn loop appends. The memory extraction and consolidation prompts
 * are in `memory-templates.ts`.
 * @module
 */

/** System prompt of a summary compaction: the model condenses the conversation so far. */
export const COMPACTION_PROMPT = `You are compacting a conversation so that it can continue in a smaller context window. The messages so far will be replaced by your summary, followed by the most recent messages, which are kept as they are.

Write a summary that lets the assistant carry on without the original messages. Include:
1. The user's goal and every explicit request, constraint and preference, in the user's own terms where wording matters.
2. What has been done: decisions taken and why, tools called and what they returned that still matters (names, values, file paths, identifiers, error messages).
3. The current state of the work: what is finished, what is in progress, what remains.
4. Open questions and anything the assistant promised to do next.

Rules:
- Be factual and specific; keep exact names, numbers, code and paths. Do not invent anything.
- Leave out greetings, repetition and details that no longer matter.
- Write plain text with short headings or bullet points; no preamble, and do not address the user.`;

/** Starts the system message that replaces compacted history; the summary follows it. */
export const COMPACTION_SUMMARY_PREFIX = `[Context summary] The earlier part of this conversation was compacted to save space. The summary below replaces those messages; the messages after it are the most recent ones, unchanged. Treat the summary as reliable background and continue the work from where it left off.`;

/** Opens the skills section of the system prompt; the list of skills follows. */
export const SKILLS_SECTION_HEADER = `## Skills

A skill is a set of instructions for a particular kind of task. These skills are available in this session:`;

/** Closes the skills section: when and how to use a skill. */
export const SKILL_USAGE_RULES = `### Using skills
- When the user types /name, the skill's instructions are added to the conversation as a <skill> message; follow them for that request.
- You may also apply a listed skill on your own when a request clearly matches its description. Say briefly which skill you are using.
- Only the skills listed here exist. Do not claim to have used a skill whose instructions you have not seen.`;

/** Opens the plugins section of the system prompt; the list of plugins follows. */
export const PLUGINS_SECTION_HEADER = `## Plugins

These plugins extend the runtime in this session. They act on their own (for example by checking tool calls or adding context); you do not call them:`;

/** Precedes the memories in the dynamic part of the system prompt. */
export const MEMORY_INSTRUCTIONS = `## Memory

The items below were remembered from earlier sessions with this user. Use them to personalise and shorten your work: respect stated preferences, reuse known facts and avoid asking again for what is already known.
- Memories may be outdated. If the current conversation contradicts one, the conversation wins.
- Do not recite memories unless the user asks what you remember.`;

/** System note appended after an assistant message that ended `incomplete`. */
export const INTERRUPTED_MESSAGE_NOTE =
  '[The previous assistant message was interrupted before it was finished.]';

/**
 * System message appended when a turn reaches its tool-call limit. No further request is made in
 * that turn, so the model reads it with the next user message.
 */
export function MAX_TOOL_CALLS_NOTE(limit: number): string {
  return `[The previous turn reached its limit of ${limit} tool calls and was stopped before the assistant could finish. Some work may be unfinished: check before assuming it was done, and tell the user what remains.]`;
}

/** Placeholder that replaces an old tool result's content in micro-compaction. */
export function clearedToolResult(chars: number): string {
  return `[Earlier tool output (${chars} characters) was cleared to save context space.]`;
}

/** The system message text that puts an invoked skill's prompt in front of the model. */
export function skillInjectionText(name: string, prompt: string): string {
  return `<skill>\n<name>${name}</name>\n${prompt}\n</skill>`;
}
