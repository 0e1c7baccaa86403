/**
 * `PromptBuilder` as pure functions: the system prompt is a **stable** part, cached
 * per session and rebuilt only after compaction, followed by a **dynamic** part rebuilt every
 * turn. Order: system instructions → personality → skills → plugins → memories →
 * environment context → dynamic sections. Tool definitions travel in `ChatRequest.tools`.
 * Same input, same output: nothing here reads a clock, a random source or global state.
 * @module
 */
import type { Memory, SkillDefinition } from '../types.js';
import {
  MEMORY_INSTRUCTIONS,
  PLUGINS_SECTION_HEADER,
  SKILLS_SECTION_HEADER,
  SKILL_USAGE_RULES,
} from './templates.js';

/** What the stable part is built from: nothing that changes during a session. */
export interface StablePromptInput {
  /** `AgentConfig.systemInstructions`, joined by blank lines. */
  systemInstructions: readonly string[];
  /** `SessionConfig.systemPromptOverride`: appended after the instructions. */
  systemPromptOverride?: string;
  personality?: string;
  /** The skills the model may use unasked (`SkillManager.implicitSkills()`). */
  skills: readonly SkillDefinition[];
  /** The registered plugins (`PluginManager.descriptors()`). */
  plugins: readonly { id: string; displayName: string; description: string }[];
}

/** What the dynamic part is built from: what may change from one turn to the next. */
export interface DynamicPromptInput {
  /** Loaded from `MemoryStorage`, in the order given. */
  memories: readonly Memory[];
  /** Rendered as `<environment_context>` with one `key: value` line per entry, in key order as given. */
  environmentContext?: Record<string, string>;
  /** The `turn_start` hook's final data, each appended as is. */
  dynamicSections: readonly string[];
}

/**
 * The stable part: `<system_instructions>` (the override appended after the instructions),
 * `<personality>`, the skills section, the plugins section — each only when it has content.
 * @example
 * buildStable({ systemInstructions: ['Be brief.'], skills: [], plugins: [] });
 * // '<system_instructions>\nBe brief.\n</system_instructions>'
 */
export function buildStable(input: StablePromptInput): string {
  const parts: string[] = [];
  const instructions = nonBlank([...input.systemInstructions, input.systemPromptOverride]);
  if (instructions.length > 0) parts.push(wrapTag('system_instructions', instructions.join('\n\n')));
  if (isFilled(input.personality)) parts.push(wrapTag('personality', input.personality.trim()));
  if (input.skills.length > 0) parts.push(renderSkills(input.skills));
  if (input.plugins.length > 0) parts.push(renderPlugins(input.plugins));
  return parts.join('\n\n');
}

/**
 * The dynamic part: the memory instructions with `<memories>`, `<environment_context>`, then
 * each dynamic section — each only when it has content.
 */
export function buildDynamic(input: DynamicPromptInput): string {
  const parts: string[] = [];
  if (input.memories.length > 0) parts.push(renderMemories(input.memories));
  const environment = input.environmentContext ? Object.entries(input.environmentContext) : [];
  if (environment.length > 0) {
    const lines = environment.map(([key, value]) => `${key}: ${indentContinuation(value)}`);
    parts.push(wrapTag('environment_context', lines.join('\n')));
  }
  parts.push(...nonBlank(input.dynamicSections));
  return parts.join('\n\n');
}

/** The whole system prompt: the stable part, a blank line, the dynamic part (either may be empty). */
export function combine(stable: string, dynamic: string): string {
  if (dynamic === '') return stable;
  if (stable === '') return dynamic;
  return `${stable}\n\n${dynamic}`;
}

function renderSkills(skills: readonly SkillDefinition[]): string {
  const list = skills.map((skill) => `- /${skill.name}: ${indentContinuation(skill.description)}`);
  return `${SKILLS_SECTION_HEADER}\n${list.join('\n')}\n\n${SKILL_USAGE_RULES}`;
}

function renderPlugins(plugins: StablePromptInput['plugins']): string {
  const list = plugins.map((plugin) => {
    const name =
      plugin.displayName && plugin.displayName !== plugin.id
        ? `${plugin.displayName} (${plugin.id})`
        : plugin.id;
    return `- ${name}: ${indentContinuation(plugin.description)}`;
  });
  return `${PLUGINS_SECTION_HEADER}\n${list.join('\n')}`;
}

function renderMemories(memories: readonly Memory[]): string {
  const list = memories.map((memory) => {
    const tags = memory.tags && memory.tags.length > 0 ? ` [${memory.tags.join(', ')}]` : '';
    return `- ${indentContinuation(memory.content)}${tags}`;
  });
  return `${MEMORY_INSTRUCTIONS}\n\n${wrapTag('memories', list.join('\n'))}`;
}

function wrapTag(tag: string, body: string): string {
  return `<${tag}>\n${body}\n</${tag}>`;
}

/** Keeps a multi-line value inside its list item or `key: value` line. */
function indentContinuation(text: string): string {
  return text.trim().replace(/\r?\n/g, '\n  ');
}

function isFilled(text: string | undefined): text is string {
  return text !== undefined && text.trim() !== '';
}

function nonBlank(texts: readonly (string | undefined)[]): string[] {
  return texts.filter(isFilled);
}
