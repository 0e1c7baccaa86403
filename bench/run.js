#!/usr/bin/env node
/**
 * `npm run bench`: runs every `bench/*.bench.ts` (or only those whose name contains one of the
 * arguments: `npm run bench -- indexeddb`) and prints one table per bench.
 *
 * A bench module default-exports `async () => BenchResult` (see `bench/types.ts`). Modules are
 * TypeScript, loaded through Vite's module runner, so they import the sources directly.
 */
import { readdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { runnerImport } from 'vite';

const dir = fileURLToPath(new URL('.', import.meta.url));
const filters = process.argv.slice(2);
const benches = (await readdir(dir))
  .filter((file) => /\.bench\.[cm]?[jt]s$/.test(file))
  .filter((file) => filters.length === 0 || filters.some((filter) => file.includes(filter)))
  .sort();

if (benches.length === 0) {
  console.error(`no bench matches ${filters.join(', ')}`);
  process.exit(1);
}

let failed = false;
for (const file of benches) {
  try {
    const { module } = await runnerImport(`${dir}${file}`, { configFile: false, logLevel: 'warn' });
    printTable(await module.default());
  } catch (error) {
    failed = true;
    console.error(`\n${file} failed:`, error);
  }
}
process.exitCode = failed ? 1 : 0;

/** Prints `result` as an aligned text table (numbers right-aligned, with thousands separators). */
function printTable({ title, rows, notes = [] }) {
  const columns = [...new Set(rows.flatMap((row) => Object.keys(row)))];
  const cell = (value) => (typeof value === 'number' ? value.toLocaleString('en') : String(value ?? ''));
  const widths = columns.map((column) =>
    Math.max(column.length, ...rows.map((row) => cell(row[column]).length)),
  );
  const line = (cells) =>
    `| ${cells
      .map((text, i) => {
        const numeric = rows.length > 0 && typeof rows[0][columns[i]] === 'number';
        return numeric ? text.padStart(widths[i]) : text.padEnd(widths[i]);
      })
      .join(' | ')} |`;
  console.log(`\n${title}\n`);
  console.log(line(columns));
  console.log(`|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`);
  for (const row of rows) console.log(line(columns.map((column) => cell(row[column]))));
  for (const note of notes) console.log(`  ${note}`);
}
