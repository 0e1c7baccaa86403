/**
 * The schema of a stored timestamp: an ISO 8601 date-time with an offset.
 * @module
 */
import * as z from 'zod/mini';
import { _isoDateTime } from 'zod/v4/core';

/**
 * `z.iso.datetime({ offset: true })`, built from its two parts: reaching it through the `z.iso`
 * namespace object keeps every ISO format of that namespace (date, time, duration and their
 * patterns) in an app's bundle, as a bundler cannot drop members of an object read by property.
 * @example
 * z.safeParse(isoTimestamp(), '2026-01-01T00:00:00.000Z').success; // true
 */
export const isoTimestamp = () => _isoDateTime(z.ZodMiniISODateTime, { offset: true });
