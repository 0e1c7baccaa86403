/**
 * Paging sessions newest update first, with an opaque cursor that stays valid while sessions
 * are appended to.
 *
 * Order: `updatedAt` descending, then `id` descending (so equal timestamps still have one fixed
 * order). `updatedAt` is in normalized UTC form (see `session-summary.ts`), so string comparison
 * is chronological, and this is exactly the order of an IndexedDB index on `['updatedAt', 'id']`
 * walked with direction `'prev'`; the next page starts at
 * `IDBKeyRange.upperBound([after.updatedAt, after.id], true)`.
 *
 * The cursor encodes the **position** of the last session returned (its `updatedAt` and `id`),
 * not an offset. The guarantee, for a client paging from `null` to the end:
 * - every session whose summary does not change during the pass is returned exactly once, in
 *   order;
 * - no session is returned twice (an update only ever moves a session towards the front, i.e.
 *   behind the cursor);
 * - a session created or updated during the pass moves to the front and may be missed by this
 *   pass; start again from `null` to see it.
 * @module
 */
import * as z from 'zod/mini';
import * as Errors from '../error-constructors.js';
import type { SessionPage, SessionSummary } from '../types.js';

/** Where a session sits in the newest-first order. */
export interface SessionPosition {
  updatedAt: string;
  id: string;
}

/** A validated `listSessions` request: start strictly after `after` (or at the front), take `limit`. */
export interface PageRequest {
  after: SessionPosition | null;
  limit: number;
}

const CURSOR_VERSION = 1;
const CursorSchema = z.strictObject({
  v: z.literal(CURSOR_VERSION),
  u: z.string(),
  i: z.string(),
});

/** Encodes `position` as an opaque, URL-safe cursor. */
export function encodeCursor(position: SessionPosition): string {
  const json = JSON.stringify({ v: CURSOR_VERSION, u: position.updatedAt, i: position.id });
  const bytes = new TextEncoder().encode(json);
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** Decodes a cursor made by {@link encodeCursor}; anything else rejects with `INVALID_INPUT`. */
export function decodeCursor(cursor: string): SessionPosition {
  const invalid = () => Errors.invalidInput(`invalid cursor '${cursor.slice(0, 40)}'`);
  if (!/^[\w-]+$/.test(cursor)) throw invalid();
  let parsed: unknown;
  try {
    const binary = atob(cursor.replace(/-/g, '+').replace(/_/g, '/'));
    const bytes = Uint8Array.from(binary, (char) => char.charCodeAt(0));
    parsed = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    throw invalid();
  }
  const result = z.safeParse(CursorSchema, parsed);
  if (!result.success) throw invalid();
  return { updatedAt: result.data.u, id: result.data.i };
}

/**
 * Validates the arguments of `listSessions`: `cursor` `null` or a cursor from a previous page,
 * `limit` a positive integer. Rejects with `INVALID_INPUT`.
 */
export function parsePageRequest(cursor: unknown, limit: unknown): PageRequest {
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1) {
    throw Errors.invalidInput(`limit must be a positive integer, got ${String(limit)}`);
  }
  if (cursor === null) return { after: null, limit };
  if (typeof cursor !== 'string') throw Errors.invalidInput('cursor must be a string or null');
  return { after: decodeCursor(cursor), limit };
}

/** Sort comparator of the newest-first order: negative when `a` comes before `b`. */
export function compareNewestFirst(a: SessionPosition, b: SessionPosition): number {
  if (a.updatedAt !== b.updatedAt) return a.updatedAt > b.updatedAt ? -1 : 1;
  if (a.id !== b.id) return a.id > b.id ? -1 : 1;
  return 0;
}

/** Whether `position` comes strictly after `after` in the newest-first order. */
export function isAfter(position: SessionPosition, after: SessionPosition | null): boolean {
  return after === null || compareNewestFirst(position, after) > 0;
}

/**
 * One page of `summaries` (in any order) for `request`: sorted newest first, starting after the
 * request's position, with `nextCursor` set iff more sessions follow.
 */
export function pageNewestFirst(summaries: Iterable<SessionSummary>, request: PageRequest): SessionPage {
  const following = [...summaries]
    .filter((summary) => isAfter(summary, request.after))
    .sort(compareNewestFirst);
  const sessions = following.slice(0, request.limit);
  const last = sessions.at(-1);
  const nextCursor = following.length > request.limit && last !== undefined ? encodeCursor(last) : null;
  return { sessions, nextCursor };
}
