/**
 * The session summary as a fold over a session's events, and the text a session search looks
 * at. Pure, so every {@link SessionStorage} (in-memory, IndexedDB, yours) derives the same
 * summary from the same events.
 * @module
 */
import type { ContentBlock, SessionEvent, SessionSummary } from '../types.js';
import { SESSION_CONFIG_KEY, SESSION_OWNER_KEY } from '../persistence/metadata-keys.js';

/** Longest title, in characters (Unicode code points). */
export const TITLE_MAX_LENGTH = 80;

/**
 * The summary after `event` is appended to the session `sessionId` whose summary so far is
 * `summary` (`null` for the first event). Returns a new object; `summary` is not changed.
 *
 * - `title`: text of the first user message that has any text (text blocks joined by a space,
 *   whitespace collapsed, cut to {@link TITLE_MAX_LENGTH} code points); `''` until there is one.
 * - `modelId`: `modelId` of the latest `session_config` metadata; `''` until known.
 * - `createdAt`: the first event's timestamp; `updatedAt`: the latest timestamp seen (never
 *   moves backwards, which the paging guarantee of `cursor.ts` relies on).
 *   Both are normalized to UTC `toISOString()` form, so comparing them as strings (as an
 *   IndexedDB index does) orders them by instant.
 * - `turnCount`: user messages; `eventCount`: events.
 * - `owner`: `userId` of the first `session_owner` metadata (`{ userId }`); absent until one.
 */
export function applyEventToSummary(
  summary: SessionSummary | null,
  sessionId: string,
  event: SessionEvent,
): SessionSummary {
  const timestamp = normalizeTimestamp(event.timestamp);
  const base: SessionSummary = summary ?? {
    id: sessionId,
    title: '',
    modelId: '',
    createdAt: timestamp,
    updatedAt: timestamp,
    turnCount: 0,
    eventCount: 0,
  };
  const next: SessionSummary = {
    ...base,
    updatedAt: timestamp > base.updatedAt ? timestamp : base.updatedAt,
    eventCount: base.eventCount + 1,
  };
  const { payload } = event;
  if (payload.type === 'user_message') {
    next.turnCount = base.turnCount + 1;
    if (next.title === '') next.title = titleFrom(payload.content);
  } else if (payload.type === 'metadata' && payload.key === SESSION_CONFIG_KEY) {
    const modelId = stringField(payload.value, 'modelId');
    if (modelId !== undefined) next.modelId = modelId;
  } else if (payload.type === 'metadata' && payload.key === SESSION_OWNER_KEY && base.owner === undefined) {
    const owner = stringField(payload.value, 'userId');
    if (owner !== undefined) next.owner = owner;
  }
  return next;
}

/** The summary of a whole list of events, or `null` when there are none. */
export function summarizeEvents(sessionId: string, events: readonly SessionEvent[]): SessionSummary | null {
  let summary: SessionSummary | null = null;
  for (const event of events) summary = applyEventToSummary(summary, sessionId, event);
  return summary;
}

/**
 * The text of `event` that a session search matches: the text blocks of user and assistant
 * messages, a system message's content, a tool result's content; `''` for anything else
 * (tool calls, metadata, images).
 */
export function searchableText(event: SessionEvent): string {
  const { payload } = event;
  switch (payload.type) {
    case 'user_message':
    case 'assistant_message':
      return textOf(payload.content);
    case 'system_message':
    case 'tool_result':
      return payload.content;
    default:
      return '';
  }
}

/**
 * A search query in the form {@link matchesQuery} expects: lower case, whitespace collapsed,
 * trimmed. `''` means "matches nothing": a blank query finds no sessions.
 */
export function normalizeQuery(query: string): string {
  return collapseWhitespace(query).toLowerCase();
}

/**
 * Whether `text` contains the normalized `query` (case-insensitive, whitespace-insensitive in
 * the sense that any run of whitespace matches any other). A blank query matches nothing.
 */
export function matchesQuery(text: string, normalizedQuery: string): boolean {
  if (normalizedQuery === '') return false;
  return collapseWhitespace(text).toLowerCase().includes(normalizedQuery);
}

/**
 * What `toISOString()` prints for a year from 0 to 9999, on days 1–28 and hours 0–23: such a
 * string prints back as itself, or does not parse. (`Date.parse` rolls `02-30` and `T24:00` over
 * to the next day, hence the limits.)
 */
const CANONICAL_UTC = /^\d{4}-\d{2}-(?:0[1-9]|1\d|2[0-8])T(?:[01]\d|2[0-3]):\d{2}:\d{2}\.\d{3}Z$/;

/** `timestamp` as UTC `toISOString()`; unchanged if it does not parse (validation is elsewhere). */
export function normalizeTimestamp(timestamp: string): string {
  // The runtime's own timestamps are already in this form: checking is cheaper than re-printing.
  if (CANONICAL_UTC.test(timestamp)) return timestamp;
  const time = Date.parse(timestamp);
  return Number.isNaN(time) ? timestamp : new Date(time).toISOString();
}

function titleFrom(content: readonly ContentBlock[]): string {
  const text = collapseWhitespace(textOf(content));
  const codePoints = Array.from(text);
  // Cutting by code points never splits a surrogate pair; trimEnd drops a space left at the cut.
  return codePoints.length <= TITLE_MAX_LENGTH
    ? text
    : codePoints.slice(0, TITLE_MAX_LENGTH).join('').trimEnd();
}

function textOf(content: readonly ContentBlock[]): string {
  return content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join(' ');
}

function collapseWhitespace(text: string): string {
  return text.replace(/\s+/gu, ' ').trim();
}

/** `value[key]` when `value` is an object whose `key` is a string (a metadata record's field). */
export function stringField(value: unknown, key: string): string | undefined {
  const field = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
  return typeof field === 'string' ? field : undefined;
}
