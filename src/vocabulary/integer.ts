/**
 * The integer schema every boundary uses.
 * @module
 */
import * as z from 'zod/mini';

/**
 * A safe integer (what `z.int()` accepts). Not `z.int()` itself: that pulls zod's number-format
 * machinery into every app, about 0.3 kB gzipped, for what one refinement checks.
 * @example
 * z.parse(integer().check(z.minimum(0)), 3); // 3
 */
export const integer = () => z.number().check(isInteger());

/** The check of {@link integer}, for a number schema that has others. */
export const isInteger = () => z.refine<number>(Number.isSafeInteger, 'expected an integer');
