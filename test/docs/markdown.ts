/**
 * Reads the repository's Markdown documentation: which files it is, their fenced code blocks
 * (with the line each starts on, so failures point into the Markdown), their tables and links.
 * Shared by the tests under `test/docs/`.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The repository root, with a trailing slash. */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The documentation pages, relative to the root: the README, CONTRIBUTING and every `docs/*.md`. */
export function docFiles(): string[] {
  const pages = readdirSync(`${ROOT}docs`)
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`);
  return ['README.md', 'CONTRIBUTING.md', ...pages];
}

/** The text of a page (`file` relative to the root). */
export function readDoc(file: string): string {
  return readFileSync(`${ROOT}${file}`, 'utf8');
}

/** One fenced code block. */
export interface CodeBlock {
  /** The page, relative to the root. */
  file: string;
  /** The info string's first word (`ts`, `text`, `sh`, …), `''` when there is none. */
  lang: string;
  /** 1-based line of the block's first content line (the line after the opening fence). */
  line: number;
  /** The content, without the fences, with the fence's indentation removed. */
  code: string;
  /** 1-based line of the closing fence. */
  endLine: number;
}

/** Every fenced block of `text` (``` or ~~~ fences, optionally indented, e.g. inside a list). */
export function codeBlocks(file: string, text: string): CodeBlock[] {
  const lines = text.split('\n');
  const blocks: CodeBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^( *)(`{3,}|~{3,})\s*([^\s`]*)(.*)$/.exec(lines[i]!);
    // A backtick fence's info string has no backtick: "```` ```ts ````" starts a code span, not a block.
    if (!open || (open[2]![0] === '`' && open[4]!.includes('`'))) continue;
    const [, indent = '', fence = '', lang = ''] = open;
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length; j++) {
      const close = /^( *)(`{3,}|~{3,})\s*$/.exec(lines[j]!);
      if (close && close[2]![0] === fence[0] && close[2]!.length >= fence.length) break;
      body.push(lines[j]!.startsWith(indent) ? lines[j]!.slice(indent.length) : lines[j]!.trimStart());
    }
    if (j >= lines.length) throw new Error(`${file}:${i + 1}: code block is never closed`);
    blocks.push({ file, lang, line: i + 2, code: body.join('\n'), endLine: j + 1 });
    i = j;
  }
  return blocks;
}

/** A ```ts block and, when a ```text block follows it with only blank lines between, its output. */
export interface Example {
  block: CodeBlock;
  /** What the example prints, exactly (without a trailing newline); `null` when no output block follows. */
  output: string | null;
}

/** The ```ts examples of `file`, each with its output block. */
export function examples(file: string): Example[] {
  const text = readDoc(file);
  const lines = text.split('\n');
  const blocks = codeBlocks(file, text);
  return blocks.flatMap((block, index) => {
    if (block.lang !== 'ts') return [];
    const next = blocks[index + 1];
    const between = next ? lines.slice(block.endLine, next.line - 2) : [];
    const adjacent = next !== undefined && next.lang === 'text' && between.every((l) => l.trim() === '');
    return [{ block, output: adjacent ? next.code : null }];
  });
}

/** A Markdown table: the header cells and the body rows, each with its 1-based line. */
export interface Table {
  header: string[];
  rows: { cells: string[]; line: number }[];
}

/** Every table of `text` (outside code blocks), split into trimmed cells. */
export function tables(file: string, text: string): Table[] {
  const inCode = new Set<number>();
  for (const b of codeBlocks(file, text)) for (let l = b.line - 1; l <= b.endLine; l++) inCode.add(l);
  const lines = text.split('\n');
  const found: Table[] = [];
  for (let i = 0; i + 1 < lines.length; i++) {
    if (inCode.has(i + 1) || !isRow(lines[i]!) || !/^\s*\|[\s|:-]+\|\s*$/.test(lines[i + 1]!)) continue;
    const table: Table = { header: cellsOf(lines[i]!), rows: [] };
    let j = i + 2;
    for (; j < lines.length && isRow(lines[j]!); j++)
      table.rows.push({ cells: cellsOf(lines[j]!), line: j + 1 });
    found.push(table);
    i = j - 1;
  }
  return found;
}

function isRow(line: string): boolean {
  return /^\s*\|.*\|\s*$/.test(line);
}

/** The cells of a table row; `\|` inside a cell is a literal bar. */
function cellsOf(row: string): string[] {
  const inner = row.trim().slice(1, -1);
  return inner.split(/(?<!\\)\|/).map((cell) => cell.trim().replace(/\\\|/g, '|'));
}

/** The inline links `[text](target)` of `text` outside code blocks and code spans, with their lines. */
export function links(file: string, text: string): { target: string; line: number }[] {
  const inCode = new Set<number>();
  for (const b of codeBlocks(file, text)) for (let l = b.line - 1; l <= b.endLine; l++) inCode.add(l);
  return text.split('\n').flatMap((line, index) => {
    if (inCode.has(index + 1)) return [];
    const prose = line.replace(/`[^`]*`/g, '');
    return [...prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => ({
      target: m[1]!,
      line: index + 1,
    }));
  });
}

/** The anchors GitHub gives the headings of `text` (lowercase, punctuation dropped, spaces → `-`). */
export function anchors(file: string, text: string): Set<string> {
  const inCode = new Set<number>();
  for (const b of codeBlocks(file, text)) for (let l = b.line - 1; l <= b.endLine; l++) inCode.add(l);
  const seen = new Map<string, number>();
  const result = new Set<string>();
  text.split('\n').forEach((line, index) => {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading || inCode.has(index + 1)) return;
    const base = heading[1]!
      .replace(/`/g, '')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    result.add(count === 0 ? base : `${base}-${count}`);
  });
  return result;
}
