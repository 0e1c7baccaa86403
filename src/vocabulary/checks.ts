/**
 * The checks every boundary uses, each a refinement rather than zod's own check of the same
 * rule: zod's number formats, regex checks and less-than checks are a class each, which every
 * app would carry for a handful of fields.
 * @module
 */
import * as z from 'zod/mini';

/**
 * A safe integer (what `z.int()` accepts).
 * @example
 * z.parse(integer().check(z.minimum(0)), 3); // 3
 */
export const integer = () => z.number().check(isInteger());

/** The check of {@link integer}, for a number schema that has others. */
export const isInteger = () => z.refine<number>(Number.isSafeInteger, 'expected an integer');

/**
 * A string that matches `pattern` (what `z.regex` checks); `message` says what it must be,
 * by default the pattern itself.
 * @example
 * z.parse(z.string().check(matching(/^\w+$/)), 'notes'); // 'notes'
 */
export const matching = (pattern: RegExp, message = `must match ${String(pattern)}`) =>
  z.refine<string>((text) => pattern.test(text), message);
