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
    ['{"n": 1.', { n: 1 }],
    ['{"n": 1.5e-', { n: 1.5 }],
    ['{"n": -', {}],
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
    const full: unknown = JSON.parse(doc);
    let previous: unknown = undefined;
    let parsed = 0;
    for (let i = 1; i <= doc.length; i++) {
      const partial = parsePartialJson(doc.slice(0, i));
      if (partial === undefined) continue;
      parsed++;
      expect(extendsTo(partial, full), `prefix ${i}: ${JSON.stringify(partial)}`).toBe(true);
      if (previous !== undefined) expect(extendsTo(previous, partial), `prefix ${i} shrank`).toBe(true);
      previous = partial;
    }
    expect(parsed).toBeGreaterThan(doc.length / 2);
    expect(previous).toEqual(full);
  });
});

/**
 * Whether `value` can grow into `target` as more text arrives: a string or number is a prefix of
 * the target's, an array holds a prefix of its items (each growing into the target's), an object
 * a subset of its keys (each growing into the target's value); anything else is equal.
 */
function extendsTo(value: unknown, target: unknown): boolean {
  if (typeof value === 'string') return typeof target === 'string' && target.startsWith(value);
  if (typeof value === 'number')
    return typeof target === 'number' && String(target).startsWith(String(value));
  if (Array.isArray(value)) {
    return (
      Array.isArray(target) &&
      value.length <= target.length &&
      value.every((item, i) => extendsTo(item, target[i]))
    );
  }
  if (typeof value === 'object' && value !== null) {
    if (typeof target !== 'object' || target === null || Array.isArray(target)) return false;
    const into = target as Record<string, unknown>;
    return Object.entries(value).every(([key, item]) => key in into && extendsTo(item, into[key]));
  }
  return value === target;
}
