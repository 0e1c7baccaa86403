/**
 * Rows of the session tables, read back and checked: a row that does not hold what this library
 * wrote (edited by hand, written by something else) is a `STORAGE_ERROR` naming it, never a value
 * passed on unchecked.
 * @module
 */
import * as z from 'zod/mini';
import { integer } from '../vocabulary/checks.js';
import { Errors } from '../errors.js';
import type { SessionDraft } from '../ports/storage.js';
import { SessionEventSchema, type SessionEvent, type SessionSummary } from '../types.js';
import { SessionDraftSchema } from '../storage/writer-fencing.js';

/** The columns of `sessions` a summary is read from. */
export const SUMMARY_COLUMNS = 'id, title, model_id, created_at, updated_at, turn_count, event_count, owner';

/** A `sessions` row as selected (`title` and `model_id` are JSON strings) with {@link SUMMARY_COLUMNS}. */
export interface SummaryRow {
  id: unknown;
  title: unknown;
  model_id: unknown;
  created_at: unknown;
  updated_at: unknown;
  turn_count: unknown;
  event_count: unknown;
  owner: unknown;
}

const Count = integer().check(z.minimum(0));
const SummarySchema = z.object({
  id: z.string(),
  title: z.string(),
  modelId: z.string(),
  createdAt: z.string().check(z.minLength(1)),
  updatedAt: z.string().check(z.minLength(1)),
  turnCount: Count,
  eventCount: Count.check(z.positive()),
  owner: z.optional(z.string()),
});

/** A summary from its row; a malformed row rejects with `STORAGE_ERROR`. */
export function summaryFromRow(row: SummaryRow): SessionSummary {
  const candidate = {
    id: row.id,
    title: parseJson(row.title),
    modelId: parseJson(row.model_id),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    // `pg` reads integers wider than 32 bits as strings; PGlite as numbers.
    turnCount: Number(row.turn_count),
    eventCount: Number(row.event_count),
    ...(row.owner !== null && row.owner !== undefined && { owner: row.owner }),
  };
  const parsed = z.safeParse(SummarySchema, candidate);
  if (!parsed.success) throw malformed(`the summary of session '${String(row.id)}'`);
  return parsed.data;
}

/** A stored event from its JSON text; malformed → `STORAGE_ERROR`. */
export function eventFromBody(sessionId: string, seq: unknown, body: unknown): SessionEvent {
  const parsed = z.safeParse(SessionEventSchema, parseJson(body));
  if (!parsed.success) throw malformed(`event ${String(seq)} of session '${sessionId}'`);
  return parsed.data;
}

/** A stored draft from its JSON text; malformed → `STORAGE_ERROR`. */
export function draftFromBody(sessionId: string, body: unknown): SessionDraft {
  const parsed = z.safeParse(SessionDraftSchema, parseJson(body));
  if (!parsed.success) throw malformed(`the draft of session '${sessionId}'`);
  return parsed.data;
}

/** JSON text parsed, or `undefined` (which no schema accepts) when it is not JSON text. */
export function parseJson(body: unknown): unknown {
  if (typeof body !== 'string') return undefined;
  try {
    return JSON.parse(body) as unknown;
  } catch {
    return undefined;
  }
}

/** The error for a stored row that does not hold what this library wrote. */
export function malformed(what: string) {
  return Errors.storage(`postgres: ${what} is malformed in the database (not as this library stores it)`);
}
