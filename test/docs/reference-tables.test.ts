/**
 * The reference tables of the documentation say what the source says: the configuration page's
 * defaults table lists exactly the keys of `AgentConfigSchema` with the defaults it resolves, and
 * the errors page's code table lists exactly `AGENT_ERROR_CODES`, each with its default source.
 */
import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import type { $ZodType } from 'zod/v4/core';
import { AGENT_ERROR_CODES, AgentConfigSchema, AgentError, type AgentErrorCode } from '../../src/index.js';
import { readDoc, tables, type Table } from './markdown.js';

/** The one table of `file` whose header is `header`. */
function tableWith(file: string, header: string[]): Table {
  const found = tables(file, readDoc(file)).filter((t) => t.header.join('|') === header.join('|'));
  if (found.length !== 1)
    throw new Error(`${file}: expected one table headed ${header.join(' | ')}, found ${found.length}`);
  return found[0]!;
}

/** The text inside a cell's single code span, e.g. `` `compaction.enabled` `` → `compaction.enabled`. */
function codeSpan(cell: string, where: string): string {
  const match = /^`([^`]+)`$/.exec(cell);
  if (!match) throw new Error(`${where}: expected one code span, got ${cell}`);
  return match[1]!;
}

/** A default as the table writes it: `120_000`, `0.8`, `true`, `[]`, `'text'`. */
function literal(text: string): unknown {
  if (/^-?[\d_]+(\.\d+)?$/.test(text)) return Number(text.replace(/_/g, ''));
  if (/^'[^']*'$/.test(text)) return text.slice(1, -1);
  return JSON.parse(text);
}

/** The schema inside `_default` / `optional` wrappers. */
function unwrap(schema: $ZodType): $ZodType {
  const def = schema._zod.def as { type: string; innerType?: $ZodType };
  return (def.type === 'default' || def.type === 'optional') && def.innerType
    ? unwrap(def.innerType)
    : schema;
}

/** Every leaf key of an object schema, dotted (`retry.maxRetries`); nested objects are recursed into. */
function schemaKeys(schema: $ZodType, prefix = ''): string[] {
  const def = unwrap(schema)._zod.def as { type: string; shape?: Record<string, $ZodType> };
  if (def.type !== 'object' || !def.shape) return [prefix];
  return Object.entries(def.shape).flatMap(([key, inner]) =>
    schemaKeys(inner, prefix ? `${prefix}.${key}` : key),
  );
}

/** The value at a dotted path, or `undefined`. */
function at(value: unknown, path: string): unknown {
  return path
    .split('.')
    .reduce<unknown>((v, key) => (v as Record<string, unknown> | undefined)?.[key], value);
}

/** A copy of `value` without the key at `path`. */
function omit(value: Record<string, unknown>, [key, ...rest]: string[]): Record<string, unknown> {
  const { [key!]: inner, ...others } = value;
  return rest.length === 0 ? others : { ...others, [key!]: omit(inner as Record<string, unknown>, rest) };
}

describe('the configuration reference', () => {
  const file = 'docs/configuration.md';
  const rows = tableWith(file, ['key', 'default', 'meaning']).rows.map(({ cells, line }) => ({
    key: codeSpan(cells[0]!, `${file}:${line}`),
    defaultCell: cells[1]!,
    where: `${file}:${line}`,
  }));
  // The smallest valid config, with `memory` set so its keys resolve too.
  const given = { defaultModel: 'm', memory: { namespace: 'n' } };
  const resolved = z.parse(AgentConfigSchema, given);

  it('lists every key of AgentConfigSchema, and no other', () => {
    expect(rows.map((r) => r.key).sort()).toEqual(schemaKeys(AgentConfigSchema).sort());
  });

  it('gives each key the default the schema resolves', () => {
    for (const row of rows) {
      if (row.defaultCell === '— (required)') {
        expect(at(given, row.key), `${row.where}: a required key`).toBeDefined();
        const parsed = z.safeParse(AgentConfigSchema, omit(given, row.key.split('.')));
        expect(parsed.success, `${row.where}: ${row.key} is required`).toBe(false);
        expect(
          parsed.error?.issues.map((i) => i.path.join('.')),
          row.where,
        ).toContain(row.key);
      } else if (row.defaultCell === '—') {
        expect(at(resolved, row.key), `${row.where}: ${row.key} has no default`).toBeUndefined();
      } else {
        const value = literal(codeSpan(row.defaultCell, row.where));
        expect(at(resolved, row.key), `${row.where}: default of ${row.key}`).toEqual(value);
      }
    }
  });
});

describe('the error codes table', () => {
  const file = 'docs/errors.md';
  const rows = tableWith(file, ['code', 'source', 'raised when']).rows.map(({ cells, line }) => ({
    code: codeSpan(cells[0]!, `${file}:${line}`),
    source: codeSpan(cells[1]!, `${file}:${line}`),
    where: `${file}:${line}`,
  }));

  it('lists every code of AGENT_ERROR_CODES exactly once, and no other', () => {
    const listed = rows.map((r) => r.code);
    expect(new Set(listed).size, 'a code is listed twice').toBe(listed.length);
    expect([...listed].sort()).toEqual([...AGENT_ERROR_CODES].sort());
  });

  it('gives each code the source an AgentError of that code defaults to', () => {
    for (const row of rows) {
      expect(new AgentError(row.code as AgentErrorCode, 'x').source, `${row.where}: ${row.code}`).toBe(
        row.source,
      );
    }
  });
});
