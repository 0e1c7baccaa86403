/** The JSON-prefix parser behind structured output's partial objects. */
import { describe, expect, it } from 'vitest';
import { parsePartialJson } from '../../src/output/partial-json.js';

describe('parsePartialJson', () => {
  it.each([
    ['', undefined],
    ['   ', undefined],
    ['{', {}],
    ['{"ti', {}],
    ['{"title"', {}],
    ['{"title":', {}],
    ['{"title": "Trip to Ky', { title: 'Trip to Ky' }],
    ['{"title": "Kyoto", "days": [', { title: 'Kyoto', days: [] }],
    ['{"days": [1, 2', { days: [1, 2] }],
    ['{"days": [1, 2,', { days: [1, 2] }],
    ['{"n": 1.', {}],
    ['{"n": -', {}],
    ['{"n": 12', { n: 12 }],
    ['{"ok": tru', {}],
    ['{"ok": true', { ok: true }],
    ['{"ok": null, "x": fal', { ok: null }],
    ['{"a": {"b": [{"c": "d', { a: { b: [{ c: 'd' }] } }],
    ['{"q": "say \\"hi', { q: 'say "hi' }],
    ['{"q": "line\\', { q: 'line' }],
    ['{"q": "\\u00e', { q: '' }],
    ['{"q": "caf\\u00e9', { q: 'café' }],
    ['["a", "b', ['a', 'b']],
    ['"just a str', 'just a str'],
    ['{"done": true}', { done: true }],
    ['not json', undefined],
  ])('%j → %j', (text, expected) => {
    expect(parsePartialJson(text)).toEqual(expected);
  });

  it('every prefix of a document parses to something the document extends', () => {
    const doc = JSON.stringify({
      title: 'A week in Kyoto',
      days: [
        { day: 1, plan: ['Fushimi Inari', 'Gion at night'], budget: 120.5 },
        { day: 2, plan: ['Arashiyama'], notes: 'rent a bike, "early"' },
      ],
      ok: true,
    });
    let previous: unknown = undefined;
    for (let i = 1; i <= doc.length; i++) {
      const partial = parsePartialJson(doc.slice(0, i));
      if (partial === undefined) continue;
      expect(typeof partial).toBe('object');
      previous = partial;
    }
    expect(previous).toEqual(JSON.parse(doc));
  });
});
