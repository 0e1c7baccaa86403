/**
 * The README's quick start, run exactly as written: the block between the `quickstart` markers is
 * extracted, its package imports are pointed at this repository's sources, and it is executed.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

function quickstart(): string {
  const match = /<!-- quickstart:start -->\s*```ts\n([\s\S]*?)```\s*<!-- quickstart:end -->/.exec(readme);
  if (!match) throw new Error('README.md has no quickstart block');
  return match[1]!
    .replace("from 'youyou-agent/testing'", "from '../../src/testing/index.js'")
    .replace("from 'youyou-agent'", "from '../../src/index.js'");
}

describe('README quick start', () => {
  afterEach(() => vi.restoreAllMocks());

  it('runs as written and prints what its comments promise', async () => {
    const code = quickstart();
    expect(code).not.toContain("from 'youyou-agent"); // every import was redirected
    mkdirSync(new URL('./.generated/', import.meta.url), { recursive: true });
    writeFileSync(new URL('./.generated/quickstart.ts', import.meta.url), code);
    const logs: unknown[][] = [];
    vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => void logs.push(args));
    // A computed specifier: the file is generated, so the type checker must not resolve it.
    const generated = './.generated/quickstart.js';
    await import(/* @vite-ignore */ generated);
    expect(logs).toEqual([
      ['calling get_weather', { city: 'Paris' }],
      ['completed', 'It is sunny and 21°C in Paris.'],
      [5],
    ]);
  });
});
