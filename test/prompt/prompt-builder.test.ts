import { describe, it, expect, vi, afterEach } from 'vitest';
import { buildDynamic, buildStable, combine } from '../../src/prompt/prompt-builder.js';
import type { DynamicPromptInput, StablePromptInput } from '../../src/prompt/prompt-builder.js';
import {
  MEMORY_INSTRUCTIONS,
  PLUGINS_SECTION_HEADER,
  SKILLS_SECTION_HEADER,
  SKILL_USAGE_RULES,
} from '../../src/prompt/templates.js';
import type { Memory } from '../../src/types.js';

const memory = (content: string, tags?: string[]): Memory => ({
  id: content,
  namespace: 'user',
  content,
  createdAt: '2025-01-01T00:00:00.000Z',
  updatedAt: '2025-01-01T00:00:00.000Z',
  ...(tags ? { tags } : {}),
});

const stableInput: StablePromptInput = {
  systemInstructions: ['You are a coding assistant.', 'Answer in English.'],
  systemPromptOverride: 'This session is about Rust.',
  personality: 'Warm and concise.',
  skills: [{ name: 'review', description: 'Review code', prompt: 'secret prompt text' }],
  plugins: [{ id: 'audit', displayName: 'Audit log', description: 'Logs tool calls' }],
};

const dynamicInput: DynamicPromptInput = {
  memories: [memory('The user prefers tabs.', ['style']), memory('The user works on project Foo.')],
  environmentContext: { cwd: '/home/me', os: 'linux' },
  dynamicSections: ['Current ticket: FOO-12', 'Build is green.'],
};

/** Positions of each marker in `text`; asserts each occurs. */
function positions(text: string, markers: string[]): number[] {
  return markers.map((marker) => {
    const at = text.indexOf(marker);
    expect(at, `missing ${JSON.stringify(marker)}`).toBeGreaterThanOrEqual(0);
    return at;
  });
}
const isAscending = (values: number[]) => values.every((v, i) => i === 0 || v > values[i - 1]!);

afterEach(() => {
  vi.useRealTimers();
});

describe('prompt order', () => {
  it('puts instructions, override, personality, skills, plugins, memories, environment, sections in that order', () => {
    const prompt = combine(buildStable(stableInput), buildDynamic(dynamicInput));
    const order = positions(prompt, [
      '<system_instructions>',
      'You are a coding assistant.',
      'Answer in English.',
      'This session is about Rust.',
      '</system_instructions>',
      '<personality>\nWarm and concise.\n</personality>',
      SKILLS_SECTION_HEADER,
      '- /review: Review code',
      SKILL_USAGE_RULES,
      PLUGINS_SECTION_HEADER,
      '- Audit log (audit): Logs tool calls',
      MEMORY_INSTRUCTIONS,
      '<memories>\n- The user prefers tabs. [style]\n- The user works on project Foo.\n</memories>',
      '<environment_context>\ncwd: /home/me\nos: linux\n</environment_context>',
      'Current ticket: FOO-12',
      'Build is green.',
    ]);
    expect(isAscending(order)).toBe(true);
  });

  it('lists skills by name and description only (the prompt text is injected on /name)', () => {
    expect(buildStable(stableInput)).not.toContain('secret prompt text');
  });

  it('leaves out empty sections, so empty inputs give an empty prompt', () => {
    expect(buildStable({ systemInstructions: [], skills: [], plugins: [] })).toBe('');
    expect(buildDynamic({ memories: [], environmentContext: {}, dynamicSections: [] })).toBe('');
    expect(buildDynamic({ memories: [], dynamicSections: ['', '  '] })).toBe('');
    expect(buildStable({ systemInstructions: [], personality: ' ', skills: [], plugins: [] })).toBe('');
  });

  it('appends the override after the instructions, also when there are none', () => {
    expect(
      buildStable({ systemInstructions: ['A.'], systemPromptOverride: 'B.', skills: [], plugins: [] }),
    ).toBe('<system_instructions>\nA.\n\nB.\n</system_instructions>');
    expect(buildStable({ systemInstructions: [], systemPromptOverride: 'B.', skills: [], plugins: [] })).toBe(
      '<system_instructions>\nB.\n</system_instructions>',
    );
  });

  it('keeps multi-line values inside their line or list item', () => {
    const dynamic = buildDynamic({
      memories: [memory('line one\nline two')],
      environmentContext: { notes: 'a\nb' },
      dynamicSections: [],
    });
    expect(dynamic).toContain('- line one\n  line two');
    expect(dynamic).toContain('notes: a\n  b');
  });
});

describe('combine', () => {
  it('joins stable and dynamic with a blank line, and drops an empty side', () => {
    expect(combine('S', 'D')).toBe('S\n\nD');
    expect(combine('S', '')).toBe('S');
    expect(combine('', 'D')).toBe('D');
    expect(combine('', '')).toBe('');
  });
});

describe('purity (what makes the stable part cacheable)', () => {
  it('gives the same output for the same input, whatever the clock says', () => {
    vi.useFakeTimers();
    vi.setSystemTime(new Date('2020-01-01T00:00:00Z'));
    const stable1 = buildStable(stableInput);
    const dynamic1 = buildDynamic(dynamicInput);
    vi.setSystemTime(new Date('2031-06-15T12:34:56Z'));
    expect(buildStable(stableInput)).toBe(stable1);
    expect(buildDynamic(dynamicInput)).toBe(dynamic1);
  });

  it('does not modify its input', () => {
    const frozenStable = structuredClone(stableInput);
    const frozenDynamic = structuredClone(dynamicInput);
    buildStable(stableInput);
    buildDynamic(dynamicInput);
    expect(stableInput).toEqual(frozenStable);
    expect(dynamicInput).toEqual(frozenDynamic);
  });

  it('keeps per-turn data out of the stable part', () => {
    const stable = buildStable(stableInput);
    for (const text of ['The user prefers tabs.', 'cwd: /home/me', 'Current ticket']) {
      expect(stable).not.toContain(text);
    }
  });
});
