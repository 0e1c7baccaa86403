/**
 * `SkillManager`: the registered skills, the detection of `/name` invocations in user text, and
 * the system message that injects an invoked skill.
 * @module
 */
import * as Errors from '../error-constructors.js';
import type { Message, SkillDefinition } from '../types.js';
import { skillInjectionText } from '../prompt/templates.js';

/**
 * `/name` at the start of the text or after whitespace, where the token ends at the end of the
 * text or at whitespace, optionally after closing punctuation (`/review.` or `(try /review)`).
 * So `a/b`, `https://host/path`, `/usr/bin` and `/notes.txt` invoke nothing. Names are matched
 * case-sensitively, as registered (`\w+`, like `SkillDefinition.name`).
 */
const INVOCATION = /(?:^|\s)\/(\w+)[.,;:!?)\]}"']*(?=\s|$)/g;

/**
 * The skills of an agent.
 * @example
 * const skills = new SkillManager([{ name: 'review', description: 'Code review', prompt: 'Review the code…' }]);
 * skills.detect('please /review this');   // [review]
 * skills.detect('see https://x.dev/review'); // []
 */
export class SkillManager {
  readonly #skills: ReadonlyMap<string, SkillDefinition>;

  /** @throws AgentError `NAME_CONFLICT` for a repeated skill name. */
  constructor(skills: readonly SkillDefinition[]) {
    const byName = new Map<string, SkillDefinition>();
    for (const skill of skills) {
      if (byName.has(skill.name)) throw Errors.nameConflict('skill', skill.name);
      byName.set(skill.name, skill);
    }
    this.#skills = byName;
  }

  /** The registered skill named `name`, if any. */
  get(name: string): SkillDefinition | undefined {
    return this.#skills.get(name);
  }

  /**
   * The registered skills invoked in `text` as `/name`, in order of first appearance, each once.
   * An unknown `/name` is ordinary text and invokes nothing.
   */
  detect(text: string): SkillDefinition[] {
    if (this.#skills.size === 0 || !text.includes('/')) return [];
    const found: SkillDefinition[] = [];
    for (const match of text.matchAll(INVOCATION)) {
      const skill = this.#skills.get(match[1]!);
      if (skill !== undefined && !found.includes(skill)) found.push(skill);
    }
    return found;
  }

  /** The system message that puts an invoked skill's prompt in front of the model. */
  renderInjection(skill: SkillDefinition): Message {
    return { type: 'system', content: skillInjectionText(skill.name, skill.prompt) };
  }

  /** Skills the prompt lists for the model to use unasked (`allowImplicitInvocation !== false`), in registration order. */
  implicitSkills(): SkillDefinition[] {
    return [...this.#skills.values()].filter((skill) => skill.allowImplicitInvocation !== false);
  }
}
