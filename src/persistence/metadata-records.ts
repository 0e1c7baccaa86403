/**
 * Reading back the `metadata` records the runtime stores beside a session's messages (their keys
 * are in `metadata-keys.ts`).
 * @module
 */
import * as z from 'zod/mini';
import type { SessionEvent } from '../types.js';

/**
 * The value of `event` when it is a `metadata` record of `key` that parses with `schema`; `null`
 * otherwise (a record that does not parse is skipped like any other event).
 * @example
 * recordOf(event, TURN_ENDED_KEY, TurnMarkerSchema)?.turnId;
 */
export function recordOf<T>(event: SessionEvent, key: string, schema: z.ZodMiniType<T>): T | null {
  const { payload } = event;
  if (payload.type !== 'metadata' || payload.key !== key) return null;
  const parsed = z.safeParse(schema, payload.value);
  return parsed.success ? parsed.data : null;
}
