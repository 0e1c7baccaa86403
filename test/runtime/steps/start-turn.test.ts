import { describe, expect, it } from 'vitest';
import { AgentError } from '../../../src/errors.js';
import { startTurn, type StartTurnScope } from '../../../src/runtime/steps/start-turn.js';
import { SkillManager } from '../../../src/skills/skill-manager.js';
import { HookResult, type UserInput } from '../../../src/types.js';
import { IDS, Journal, live } from './support.js';

const REVIEW = { name: 'review', description: 'Code review', prompt: 'Review carefully.' };
const PLAN = { name: 'plan', description: 'Planning', prompt: 'Plan first.' };

function setup(input: UserInput, skills = new SkillManager([REVIEW, PLAN])) {
  const journal = new Journal();
  const scope: StartTurnScope = {
    input,
    hook: journal.hook,
    skills,
    append: journal.append,
    record: journal.record,
  };
  return { journal, scope };
}

const say = (...texts: string[]): UserInput => ({ content: texts.map((text) => ({ type: 'text', text })) });

describe('startTurn', () => {
  it('asks turn_start with no sections, then appends the user message', async () => {
    const { journal, scope } = setup(say('hello'));
    const output = await startTurn(scope, IDS, live());
    expect(output).toEqual({ dynamicSections: [] });
    expect(journal.trail).toEqual(['record:turn_started', 'hook:turn_start', 'append:user']);
    expect(journal.recorded).toEqual([{ type: 'metadata', key: 'turn_started', value: { turnId: 't-1' } }]);
    expect(journal.hookData('turn_start')).toEqual([[]]);
    expect(journal.appended).toEqual([{ type: 'user', content: [{ type: 'text', text: 'hello' }] }]);
  });

  it('returns the sections turn_start handlers produced, chained in order', async () => {
    const { journal, scope } = setup(say('hello'));
    journal.hooks.tap('turn_start', 'a', null, ({ data }) => HookResult.continueWith([...data, 'first']));
    journal.hooks.tap('turn_start', 'b', null, ({ data }) => HookResult.continueWith([...data, 'second']));
    expect(await startTurn(scope, IDS, live())).toEqual({ dynamicSections: ['first', 'second'] });
  });

  it('injects each invoked skill once, in order of appearance, right before the user message', async () => {
    const { journal, scope } = setup(say('/plan then /review, and /review again'));
    await startTurn(scope, IDS, live());
    expect(journal.appended).toEqual([
      { type: 'system', content: expect.stringContaining('Plan first.') },
      { type: 'system', content: expect.stringContaining('Review carefully.') },
      { type: 'user', content: [{ type: 'text', text: '/plan then /review, and /review again' }] },
    ]);
  });

  it('reads skill invocations across text blocks, each block on its own line', async () => {
    // Joined without a separator, "see/review" would invoke nothing.
    const { journal, scope } = setup(say('see', '/review'));
    await startTurn(scope, IDS, live());
    expect(journal.trail).toEqual(['record:turn_started', 'hook:turn_start', 'append:system', 'append:user']);
  });

  it('ignores images and unknown /names when looking for skills', async () => {
    const input: UserInput = {
      content: [
        { type: 'image', data: 'aGk=', mediaType: 'image/png' },
        { type: 'text', text: '/unknown please' },
      ],
    };
    const { journal, scope } = setup(input);
    await startTurn(scope, IDS, live());
    expect(journal.appended).toEqual([{ type: 'user', content: input.content }]);
  });

  it('fails with REQUEST_BLOCKED naming the reason when turn_start aborts, appending nothing', async () => {
    const { journal, scope } = setup(say('/review this'));
    journal.hooks.tap('turn_start', 'guard', null, () => HookResult.abort('quota reached'));
    const failure = await startTurn(scope, IDS, live()).catch((error: unknown) => error);
    expect(AgentError.isInstance(failure)).toBe(true);
    expect(failure).toMatchObject({
      code: 'REQUEST_BLOCKED',
      message: expect.stringContaining('quota reached'),
    });
    expect(journal.appended).toEqual([]);
  });

  it('appends nothing when the turn is cancelled while turn_start runs', async () => {
    const { journal, scope } = setup(say('/review this'));
    const controller = new AbortController();
    journal.hooks.tap('turn_start', 'slow', null, () => {
      controller.abort();
      return HookResult.continueWith(['late']);
    });
    expect(await startTurn(scope, IDS, controller.signal)).toEqual({ dynamicSections: ['late'] });
    expect(journal.appended).toEqual([]);
  });
});
