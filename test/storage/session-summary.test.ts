import { describe, expect, it } from 'vitest';
import {
  applyEventToSummary,
  matchesQuery,
  normalizeQuery,
  normalizeTimestamp,
  searchableText,
  summarizeEvents,
} from '../../src/storage/session-summary.js';
import type { SessionEvent, SessionEventPayload } from '../../src/types.js';

const at = (seconds: number) => new Date(Date.UTC(2024, 0, 1) + seconds * 1000).toISOString();
const ev = (seconds: number, payload: SessionEventPayload): SessionEvent => ({
  timestamp: at(seconds),
  payload,
});
const user = (seconds: number, ...texts: string[]) =>
  ev(seconds, { type: 'user_message', content: texts.map((text) => ({ type: 'text', text })) });

describe('applyEventToSummary', () => {
  it('starts a summary from the first event', () => {
    expect(applyEventToSummary(null, 's1', user(5, 'Hi there'))).toEqual({
      id: 's1',
      title: 'Hi there',
      modelId: '',
      createdAt: at(5),
      updatedAt: at(5),
      turnCount: 1,
      eventCount: 1,
    });
  });

  it('does not change the summary it is given', () => {
    const first = applyEventToSummary(null, 's1', user(1, 'a'));
    const snapshot = { ...first };
    const second = applyEventToSummary(first, 's1', user(2, 'b'));
    expect(first).toEqual(snapshot);
    expect(second).not.toBe(first);
    expect(second.eventCount).toBe(2);
  });

  it('keeps the title of the first user message with text', () => {
    const summary = summarizeEvents('s', [
      ev(0, { type: 'user_message', content: [{ type: 'image', data: 'AA==', mediaType: 'image/png' }] }),
      user(1, ' first\n\nquestion ', 'part two'),
      user(2, 'second'),
    ]);
    expect(summary?.title).toBe('first question part two');
    expect(summary?.turnCount).toBe(3);
  });

  it('cuts the title at 80 code points without splitting a surrogate pair', () => {
    const title = summarizeEvents('s', [user(0, `${'x'.repeat(79)}𝒳𝒴 tail`)])?.title;
    expect(title).toBe(`${'x'.repeat(79)}𝒳`);
    expect(Array.from(title ?? '')).toHaveLength(80);
  });

  it('drops a space left at the cut', () => {
    expect(summarizeEvents('s', [user(0, `${'x'.repeat(79)} yz`)])?.title).toBe('x'.repeat(79));
  });

  it('reads modelId from the latest session_config metadata only', () => {
    const summary = summarizeEvents('s', [
      ev(0, { type: 'metadata', key: 'session_config', value: { modelId: 'a', other: 1 } }),
      ev(1, { type: 'metadata', key: 'other', value: { modelId: 'not this' } }),
      ev(2, { type: 'metadata', key: 'session_config', value: { systemPromptOverride: 'x' } }),
    ]);
    expect(summary?.modelId).toBe('a');
    const later = summarizeEvents('s', [
      ev(0, { type: 'metadata', key: 'session_config', value: { modelId: 'a' } }),
      ev(1, { type: 'metadata', key: 'session_config', value: { modelId: 'b' } }),
    ]);
    expect(later?.modelId).toBe('b');
  });

  it('keeps createdAt from the first event and updatedAt at the latest instant, in UTC', () => {
    const summary = summarizeEvents('s', [
      { timestamp: '2024-05-01T12:00:00+02:00', payload: { type: 'system_message', content: '' } },
      { timestamp: '2024-05-01T11:00:00.250Z', payload: { type: 'system_message', content: '' } },
      { timestamp: '2024-05-01T09:00:00Z', payload: { type: 'system_message', content: '' } },
    ]);
    expect(summary).toMatchObject({
      createdAt: '2024-05-01T10:00:00.000Z',
      updatedAt: '2024-05-01T11:00:00.250Z',
      eventCount: 3,
      turnCount: 0,
      title: '',
    });
  });

  it('summarizes no events as null', () => {
    expect(summarizeEvents('s', [])).toBeNull();
  });
});

describe('searchableText', () => {
  it('returns the text of messages and tool results, and nothing of calls or metadata', () => {
    expect(searchableText(user(0, 'a', 'b'))).toBe('a b');
    expect(
      searchableText(
        ev(0, {
          type: 'assistant_message',
          content: [
            { type: 'text', text: 'answer' },
            { type: 'image', data: 'AA==', mediaType: 'image/png' },
          ],
          status: 'incomplete',
        }),
      ),
    ).toBe('answer');
    expect(searchableText(ev(0, { type: 'system_message', content: 'note' }))).toBe('note');
    expect(searchableText(ev(0, { type: 'tool_result', callId: 'c', content: 'out', isError: true }))).toBe(
      'out',
    );
    expect(
      searchableText(ev(0, { type: 'tool_call', callId: 'c', toolName: 't', arguments: { q: 'x' } })),
    ).toBe('');
    expect(searchableText(ev(0, { type: 'metadata', key: 'k', value: 'v' }))).toBe('');
  });
});

describe('query matching', () => {
  it('is case-insensitive and treats any whitespace run alike', () => {
    const query = normalizeQuery('  Hello   WORLD ');
    expect(query).toBe('hello world');
    expect(matchesQuery('say hello\n\tworld!', query)).toBe(true);
    expect(matchesQuery('hello there world', query)).toBe(false);
  });

  it('matches nothing with a blank query', () => {
    expect(matchesQuery('anything', normalizeQuery('   '))).toBe(false);
  });
});

describe('normalizeTimestamp', () => {
  it('converts offsets to UTC and leaves an unparsable value alone', () => {
    expect(normalizeTimestamp('2024-01-01T01:00:00+01:00')).toBe('2024-01-01T00:00:00.000Z');
    expect(normalizeTimestamp('not a time')).toBe('not a time');
  });

  it('gives what a Date round trip gives for every canonical-looking string, rolled-over dates included', () => {
    const roundTrip = (text: string) => {
      const time = Date.parse(text);
      return Number.isNaN(time) ? text : new Date(time).toISOString();
    };
    const pad = (n: number, width = 2) => String(n).padStart(width, '0');
    const differ: string[] = [];
    for (const year of [0, 1970, 2024, 2100, 9999])
      for (let month = 0; month <= 13; month++)
        for (let day = 0; day <= 32; day++)
          for (const hour of [0, 23, 24, 25])
            for (const minute of [0, 59, 60]) {
              const text = `${pad(year, 4)}-${pad(month)}-${pad(day)}T${pad(hour)}:${pad(minute)}:${pad(minute)}.123Z`;
              if (normalizeTimestamp(text) !== roundTrip(text)) differ.push(text);
            }
    expect(differ).toEqual([]);
    expect(normalizeTimestamp('2024-02-30T00:00:00.000Z')).toBe('2024-03-01T00:00:00.000Z');
    expect(normalizeTimestamp('2024-02-28T24:00:00.000Z')).toBe('2024-02-29T00:00:00.000Z');
  });
});
