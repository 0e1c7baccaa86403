import { describe, expect, it } from 'vitest';
import {
  compareNewestFirst,
  decodeCursor,
  encodeCursor,
  isAfter,
  pageNewestFirst,
  parsePageRequest,
} from '../../src/storage/cursor.js';
import type { SessionSummary } from '../../src/types.js';
import { expectAgentError } from '../support/errors.js';

const summary = (id: string, updatedAt: string): SessionSummary => ({
  id,
  title: '',
  modelId: '',
  createdAt: updatedAt,
  updatedAt,
  turnCount: 0,
  eventCount: 1,
});

describe('cursor encoding', () => {
  it('round-trips a position, including non-ASCII ids, as a URL-safe string', () => {
    const position = { updatedAt: '2024-01-01T00:00:00.000Z', id: 'séance/会话?+=' };
    const cursor = encodeCursor(position);
    expect(cursor).toMatch(/^[\w-]+$/);
    expect(decodeCursor(cursor)).toEqual(position);
  });

  it('rejects anything it did not make with INVALID_INPUT', async () => {
    const foreign = btoa(JSON.stringify({ v: 2, u: 'x', i: 'y' })).replace(/=+$/, '');
    for (const bad of ['', '!!', 'abc', foreign, encodeCursor({ updatedAt: 'x', id: 'y' }).slice(1)]) {
      await expectAgentError(() => decodeCursor(bad), 'INVALID_INPUT');
    }
  });

  it('names the bad cursor in the error', async () => {
    expect((await expectAgentError(() => decodeCursor('nope'), 'INVALID_INPUT')).message).toContain("'nope'");
  });
});

describe('parsePageRequest', () => {
  it('accepts null or a cursor and a positive integer limit', () => {
    expect(parsePageRequest(null, 5)).toEqual({ after: null, limit: 5 });
    const after = { updatedAt: '2024-01-01T00:00:00.000Z', id: 'a' };
    expect(parsePageRequest(encodeCursor(after), 1)).toEqual({ after, limit: 1 });
  });

  it('rejects limits that are not positive integers, and non-string cursors', async () => {
    for (const limit of [0, -2, 0.5, Number.NaN, Infinity, '3', undefined]) {
      await expectAgentError(() => parsePageRequest(null, limit), 'INVALID_INPUT');
    }
    await expectAgentError(() => parsePageRequest(42, 1), 'INVALID_INPUT');
    await expectAgentError(() => parsePageRequest(undefined, 1), 'INVALID_INPUT');
  });
});

describe('newest-first order', () => {
  it('orders by updatedAt descending, then id descending', () => {
    const items = [
      summary('a', '2024-01-01T00:00:01.000Z'),
      summary('c', '2024-01-01T00:00:02.000Z'),
      summary('b', '2024-01-01T00:00:02.000Z'),
      summary('d', '2024-01-01T00:00:00.000Z'),
    ];
    expect([...items].sort(compareNewestFirst).map((s) => s.id)).toEqual(['c', 'b', 'a', 'd']);
    expect(isAfter(items[0]!, null)).toBe(true);
    expect(isAfter(items[2]!, items[1]!)).toBe(true);
    expect(isAfter(items[1]!, items[2]!)).toBe(false);
    expect(isAfter(items[1]!, items[1]!)).toBe(false);
  });
});

describe('pageNewestFirst', () => {
  const all = Array.from({ length: 5 }, (_, i) => summary(`s${i}`, `2024-01-01T00:00:0${i}.000Z`));

  it('returns the first page and a cursor when more follow', () => {
    const page = pageNewestFirst(all, { after: null, limit: 2 });
    expect(page.sessions.map((s) => s.id)).toEqual(['s4', 's3']);
    expect(decodeCursor(page.nextCursor!)).toEqual({ updatedAt: all[3]!.updatedAt, id: 's3' });
  });

  it('gives a null cursor when the page reaches the end exactly', () => {
    expect(pageNewestFirst(all, { after: null, limit: 5 }).nextCursor).toBeNull();
    const rest = pageNewestFirst(all, { after: { updatedAt: all[2]!.updatedAt, id: 's2' }, limit: 2 });
    expect(rest.sessions.map((s) => s.id)).toEqual(['s1', 's0']);
    expect(rest.nextCursor).toBeNull();
  });

  it('continues from a position even when the session there has moved or gone', () => {
    const moved = all.filter((s) => s.id !== 's3');
    const page = pageNewestFirst(moved, { after: { updatedAt: all[3]!.updatedAt, id: 's3' }, limit: 10 });
    expect(page.sessions.map((s) => s.id)).toEqual(['s2', 's1', 's0']);
  });
});
