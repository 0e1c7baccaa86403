import * as z from 'zod/mini';
import { describe, expect, it } from 'vitest';
import { readTokenUsage } from '../../../src/runtime/steps/read-token-usage.js';
import { TokenUsageSchema } from '../../../src/types.js';

const base = { inputTokens: 1, outputTokens: 2, totalTokens: 3 };
class Usage {
  inputTokens = 1;
  outputTokens = 2;
  totalTokens = 3;
}
const CASES: [string, unknown][] = [
  ['the three counters', base],
  [
    'all five, in another order',
    { reasoningTokens: 4, totalTokens: 3, cachedInputTokens: 0, outputTokens: 2, inputTokens: 1 },
  ],
  ['an optional counter present as undefined', { ...base, cachedInputTokens: undefined }],
  ['zero and -0', { inputTokens: 0, outputTokens: -0, totalTokens: 0 }],
  ['the largest safe integer', { ...base, totalTokens: Number.MAX_SAFE_INTEGER }],
  ['an unknown key', { ...base, extra: 1 }],
  ['an unknown key holding undefined', { ...base, extra: undefined }],
  ['a missing counter', { inputTokens: 1, outputTokens: 2 }],
  ['a negative counter', { ...base, outputTokens: -1 }],
  ['a fraction', { ...base, inputTokens: 1.5 }],
  ['an unsafe integer', { ...base, inputTokens: 2 ** 53 }],
  ['NaN', { ...base, inputTokens: Number.NaN }],
  ['Infinity', { ...base, totalTokens: Number.POSITIVE_INFINITY }],
  ['a numeric string', { ...base, inputTokens: '1' }],
  ['null as an optional counter', { ...base, reasoningTokens: null }],
  ['a bad optional counter', { ...base, cachedInputTokens: -2 }],
  ['a class instance', new Usage()],
  ['counters on the prototype', Object.create(base) as unknown],
  ['an array', [1, 2, 3]],
  ['a Map', new Map(Object.entries(base))],
  ['null', null],
  ['undefined', undefined],
  ['a number', 3],
  ['a string', 'usage'],
];

describe('readTokenUsage', () => {
  it.each(CASES)('agrees with TokenUsageSchema: %s', (_, value) => {
    const parsed = z.safeParse(TokenUsageSchema, value);
    const read = readTokenUsage(value);
    if (!parsed.success) return expect(read).toBeNull();
    expect(read).not.toBe(value);
    expect(read).toStrictEqual(parsed.data);
    expect(Object.keys(read!)).toEqual(Object.keys(parsed.data));
  });
});
