/**
 * Layering rules of the sources, checked on their import lines: the conversation model stays free
 * of the runtime (a remote client reuses it without machines), and no two modules import each
 * other, however long the way round.
 */
import { describe, expect, it } from 'vitest';
import { cycles, importGraph, importSpecifiers, resolveRelative, sourceFiles } from './import-graph.js';

const sources = [...sourceFiles('src'), ...sourceFiles('machines')];
const graph = importGraph(sources);

describe('src/conversation', () => {
  const own = sourceFiles('src/conversation');

  it('imports nothing from src/runtime, machines/ or xstate, directly or through another module', () => {
    const offending: string[] = [];
    const seen = new Set<string>();
    const walk = (file: string, via: readonly string[]): void => {
      if (seen.has(file)) return;
      seen.add(file);
      for (const specifier of importSpecifiers(file)) {
        const target = resolveRelative(file, specifier);
        const chain = [...via, file].join(' → ');
        if (target === null) {
          if (specifier === 'xstate' || specifier.startsWith('xstate/'))
            offending.push(`${chain} → ${specifier}`);
        } else if (target.startsWith('src/runtime/') || target.startsWith('machines/')) {
          offending.push(`${chain} → ${target}`);
        } else walk(target, [...via, file]);
      }
    };
    for (const file of own) walk(file, []);
    expect(own.length).toBeGreaterThan(0);
    expect(offending).toEqual([]);
  });
});

describe('the import graph of src/ and machines/', () => {
  it('has no circles', () => {
    expect(graph.size).toBeGreaterThan(100);
    expect(cycles(graph).map((cycle) => cycle.join(' → '))).toEqual([]);
  });

  it('sees a circle when there is one', () => {
    const circle = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts']],
      ['d.ts', ['a.ts']],
    ]);
    expect(cycles(circle)).toEqual([['a.ts', 'b.ts', 'c.ts', 'a.ts']]);
  });
});
