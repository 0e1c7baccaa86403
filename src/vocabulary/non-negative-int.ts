/**
 * A count or size: a non-negative integer.
 * @module
 */
import * as z from 'zod/mini';

/** A schema of a count or size: an integer ≥ 0. */
export const nonNegativeInt = () => z.number().check(z.int(), z.minimum(0));
