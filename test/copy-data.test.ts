/**
 * `copyData`: a deep copy of JSON-like data by a walk, and `structuredClone`'s result (or error)
 * for anything else inside.
 */
import { describe, expect, it } from 'vitest';
import { copyData } from '../src/copy-data.js';

/** Every object and array reachable from `value`. */
function containers(value: unknown, found: object[] = []): object[] {
  if (typeof value !== 'object' || value === null) return found;
  found.push(value);
  for (const child of Object.values(value)) containers(child, found);
  return found;
}

describe('copyData', () => {
  it('copies JSON-like data deeply: equal to structuredClone’s copy, sharing no object or array', () => {
    const value = {
      type: 'tool_result',
      text: 'é 😀',
      n: -0.5,
      ok: true,
      none: null,
      missing: undefined,
      nested: { list: [1, 'two', { three: [3] }], empty: {} },
      bare: Object.assign(Object.create(null), { key: 'value' }),
    };
    const copy = copyData(value);
    expect(copy).toStrictEqual(structuredClone(value));
    const original = new Set(containers(value));
    expect(containers(copy).filter((object) => original.has(object))).toEqual([]);
    expect('missing' in copy).toBe(true);
  });

  it('gives structuredClone’s result for a Date, a Map, a cycle, a sparse array or a `__proto__` key', () => {
    const cycle: { self?: unknown } = {};
    cycle.self = cycle;
    const odd = [
      { at: new Date(0) },
      { map: new Map([['a', 1]]) },
      cycle,
      { list: [1, , 3] },
      JSON.parse('{"__proto__": {"polluted": true}}') as object,
    ];
    for (const value of odd) expect(copyData(value)).toStrictEqual(structuredClone(value));
    const copied = copyData(cycle);
    expect(copied.self).toBe(copied);
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
  });

  it('throws structuredClone’s DataCloneError for a function or a symbol', () => {
    expect(() => copyData({ run: () => 1 })).toThrow(expect.objectContaining({ name: 'DataCloneError' }));
    expect(() => copyData([Symbol('x')])).toThrow(expect.objectContaining({ name: 'DataCloneError' }));
  });

  it('copies data nested deeper than it walks through structuredClone', () => {
    let deep: unknown = 'leaf';
    for (let i = 0; i < 100; i++) deep = { child: deep };
    expect(copyData(deep)).toStrictEqual(deep);
  });
});
