/**
 * The documentation stands on its own: every link points into this repository, at a file that
 * exists and, with a `#fragment`, at a heading that exists. And the README keeps its promises:
 * the two set-up commands first, and a length that stays readable.
 */
import { existsSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, anchors, codeBlocks, docFiles, links, readDoc } from './markdown.js';

describe('documentation links', () => {
  it('point only into the repository, at files and headings that exist', () => {
    const broken: string[] = [];
    for (const file of docFiles()) {
      for (const { target, line } of links(file, readDoc(file))) {
        const where = `${file}:${line}: ${target}`;
        if (/^[a-z][a-z0-9+.-]*:|^\/\//i.test(target)) {
          broken.push(`${where} leaves the repository`);
          continue;
        }
        const [path = '', fragment] = target.split('#');
        const resolved = path === '' ? file : normalize(join(dirname(file), path));
        if (!existsSync(`${ROOT}${resolved}`)) {
          broken.push(`${where}: no such file`);
        } else if (fragment !== undefined && !anchors(resolved, readDoc(resolved)).has(fragment)) {
          broken.push(`${where}: no heading #${fragment} in ${resolved}`);
        }
      }
    }
    expect(broken).toEqual([]);
  });
});

describe('README.md', () => {
  const readme = readDoc('README.md');

  it('starts with the two set-up commands', () => {
    const [first] = codeBlocks('README.md', readme);
    expect(first?.lang).toBe('sh');
    expect(first?.line).toBeLessThanOrEqual(4);
    expect(first?.code.split('\n').map((l) => l.replace(/\s+#.*$/, ''))).toEqual([
      'npm ci && npm start',
      'npm ci && npm test',
    ]);
  });

  it('stays at most 250 lines', () => {
    expect(readme.trimEnd().split('\n').length).toBeLessThanOrEqual(250);
  });
});
