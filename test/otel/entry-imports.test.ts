/**
 * `youyou-agent/otel` stands beside the core: besides its own files it imports
 * `@opentelemetry/api`, and from the core only types (the ports and the vocabulary) and the
 * port's `READS_REQUEST_ONLY` marker. The core never imports it.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { sourceFiles } from '../architecture/import-graph.js';

const IMPORT = /^(import|export)\s+(type\s+)?[^'";]*?from\s+'([^']+)'/gm;

describe('the youyou-agent/otel entry', () => {
  const own = ['src/otel.ts', ...sourceFiles('src/otel')];

  it('imports @opentelemetry/api, its own files, and only types and ports from the core', () => {
    const offending: string[] = [];
    for (const file of own) {
      for (const [, , typeOnly, specifier] of readFileSync(file, 'utf8').matchAll(IMPORT)) {
        if (specifier === '@opentelemetry/api' || specifier!.startsWith('./')) continue;
        if (specifier!.startsWith('../') && (typeOnly || specifier === '../ports/model-provider.js'))
          continue;
        offending.push(`${file} → ${specifier}`);
      }
    }
    expect(own.length).toBeGreaterThan(3);
    expect(offending).toEqual([]);
  });

  it('is imported by nothing outside it', () => {
    const importers = [...sourceFiles('src'), ...sourceFiles('machines')].filter(
      (file) => !own.includes(file) && /from '[^']*\/otel(\.js|\/)/.test(readFileSync(file, 'utf8')),
    );
    expect(importers).toEqual([]);
  });
});
