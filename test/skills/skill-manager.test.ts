import { describe, it, expect } from 'vitest';
import { SkillManager } from '../../src/skills/skill-manager.js';
import type { SkillDefinition } from '../../src/types.js';

const review: SkillDefinition = {
  name: 'review',
  description: 'Review code',
  prompt: 'Check for bugs.\nBe specific.',
};
const deploy: SkillDefinition = {
  name: 'deploy',
  description: 'Deploy',
  prompt: 'Ship it.',
  allowImplicitInvocation: false,
};
const bin: SkillDefinition = {
  name: 'bin',
  description: 'Binary tricks',
  prompt: 'Bits.',
  allowImplicitInvocation: true,
};
const skills = new SkillManager([review, deploy, bin]);
const names = (text: string) => skills.detect(text).map((s) => s.name);

describe('SkillManager.detect', () => {
  it('finds /name at the start of the text or after whitespace', () => {
    expect(names('/review this diff')).toEqual(['review']);
    expect(names('please /review this')).toEqual(['review']);
    expect(names('first line\n/review')).toEqual(['review']);
    expect(names('tab\t/review')).toEqual(['review']);
  });

  it('accepts closing punctuation after the name', () => {
    expect(names('can you /review?')).toEqual(['review']);
    expect(names('run /review, then /deploy.')).toEqual(['review', 'deploy']);
    expect(names('(or try /review)')).toEqual(['review']);
  });

  it('ignores slashes inside words, URLs and paths', () => {
    expect(names('and/review')).toEqual([]);
    expect(names('see https://example.com/review')).toEqual([]);
    expect(names('open /bin/review')).toEqual([]); // a path, not /bin
    expect(names('open /usr/bin')).toEqual([]);
    expect(names('edit /review.txt')).toEqual([]);
    expect(names('(/review)')).toEqual([]); // not after whitespace
  });

  it('matches whole names only, case-sensitively', () => {
    expect(names('/reviewer')).toEqual([]);
    expect(names('/Review')).toEqual([]);
    expect(names('/review-all')).toEqual([]);
  });

  it('leaves an unknown /name as plain text', () => {
    expect(names('/unknown please')).toEqual([]);
    expect(names('/unknown /review')).toEqual(['review']);
  });

  it('returns skills in order of appearance, each once', () => {
    expect(names('/deploy after /review and /deploy again /review')).toEqual(['deploy', 'review']);
  });

  it('returns nothing when no skill is registered', () => {
    expect(new SkillManager([]).detect('/review')).toEqual([]);
  });
});

describe('SkillManager', () => {
  it('renders an invoked skill as a <skill> system message', () => {
    expect(skills.renderInjection(review)).toEqual({
      type: 'system',
      content: '<skill>\n<name>review</name>\nCheck for bugs.\nBe specific.\n</skill>',
    });
  });

  it('lists the implicitly invocable skills (the default) in registration order', () => {
    expect(skills.implicitSkills().map((s) => s.name)).toEqual(['review', 'bin']);
  });

  it('finds a skill by name', () => {
    expect(skills.get('deploy')).toBe(deploy);
    expect(skills.get('nope')).toBeUndefined();
  });

  it('rejects two skills with one name (NAME_CONFLICT)', () => {
    expect(() => new SkillManager([review, review])).toThrow(
      expect.objectContaining({ code: 'NAME_CONFLICT' }),
    );
  });
});
