/**
 * Reading records back: each is validated with its zod schema; a corrupt one is reported with
 * its store and key and skipped, so the rest still loads.
 * @module
 */
import * as z from 'zod/mini';
import type { $ZodType, output } from 'zod/v4/core';
import type { CorruptRecordInfo } from './options.js';
import type { StoreName } from './schema.js';

/** Where corrupt records are reported. */
export type CorruptRecordReporter = (info: CorruptRecordInfo) => void;

/** `value` parsed with `schema`, or `undefined` after reporting it as corrupt. */
export function readRecord<S extends $ZodType>(
  schema: S,
  value: unknown,
  store: StoreName,
  key: IDBValidKey,
  report: CorruptRecordReporter,
): output<S> | undefined {
  const result = z.safeParse(schema, value);
  if (result.success) return result.data;
  try {
    report({ store, key, issues: result.error.issues });
  } catch {
    // A throwing reporter must not turn one bad record into a failed load.
  }
  return undefined;
}
