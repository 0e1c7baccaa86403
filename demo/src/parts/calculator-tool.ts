/**
 * The calculator tool: read-only, so the runtime may run it beside other read-only calls.
 * @module
 */
import { defineTool } from 'youyou-agent';
import * as z from 'zod/mini';
import { calculate } from './calculate.js';

export const calculatorTool = defineTool({
  name: 'calculator',
  description:
    'Evaluates an arithmetic expression exactly. Supports + - * / % ^ and parentheses. Use it for every calculation.',
  parameters: z.object({
    expression: z.string().check(z.describe('The expression, e.g. "12 * (3 + 4)"')),
  }),
  execute: ({ arguments: { expression } }) => {
    try {
      return `${expression} = ${format(calculate(expression))}`;
    } catch (error) {
      return { content: `Cannot evaluate "${expression}": ${(error as Error).message}`, isError: true };
    }
  },
});

/** At most 12 significant digits, without a trailing `.000…`. */
function format(value: number): string {
  return String(Number(value.toPrecision(12)));
}
