/**
 * The demo skill: type `/stepwise` in a message to put its instructions in front of the model.
 * @module
 */
import type { SkillDefinition } from 'youyou-agent';

export const stepwiseSkill: SkillDefinition = {
  name: 'stepwise',
  description: 'Solve a calculation step by step, checking each step with the calculator.',
  prompt:
    'Split the problem into small steps. Compute every step with the calculator tool (one call per step), ' +
    'then answer with a numbered list of the steps and the final result in bold.',
  requiredTools: ['calculator'],
};
