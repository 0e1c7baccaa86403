#!/usr/bin/env node
/**
 * `npm run bench`: runs every `bench/*.bench.ts` (or only those whose name contains one of the
 * arguments: `npm run bench -- indexeddb`) and prints one table per bench. Arguments starting
 * with `--` are options given to every bench (`--runs 3`, `--runs=3`; `--no-build` is a flag):
 * `npm run bench -- peer --runs 3`.
 *
 * A bench module default-exports `async (options) => BenchResult` (see `bench/types.ts`).
 * Modules are TypeScript, loaded through Vite's module runner, so they import the sources directly.
 */
import { readdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { runnerImport } from 'vite';

const dir = fileURLToPath(new URL('.', import.meta.url));
const { filters, options } = parseArguments(process.argv.slice(2));
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
    printTable(await module.default(options));
  } catch (error) {
    failed = true;
    console.error(`\n${file} failed:`, error);
  }
}
process.exitCode = failed ? 1 : 0;

/** Splits the arguments into name filters and `--name value` / `--name=value` / `--no-name` options. */
function parseArguments(args) {
  const filters = [];
  const options = {};
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (!arg.startsWith('--')) {
      filters.push(arg);
      continue;
    }
    const [name, inline] = arg.slice(2).split(/=(.*)/s);
    if (inline !== undefined) options[name] = inline;
    else if (!name.startsWith('no-') && i + 1 < args.length && !args[i + 1].startsWith('--'))
      options[name] = args[++i];
    else options[name] = true;
  }
  return { filters, options: Object.freeze(options) };
}

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
