#!/usr/bin/env node
/**
 * `npm run size`: what an app pays for this library. Each file in `scripts/size/` is an app that
 * imports the built package (`dist/`, through the package's own exports) the way a user does. It
 * is bundled for the browser and minified twice, by esbuild (one file, no code splitting) and by
 * a Vite app build, and each result is compressed with gzip level 9. kB = 1024 bytes of gzip
 * output. Sizes are deterministic, so a budget is a test.
 *
 * An entry with `addedTo` measures what an import adds: its app's size minus that of the app
 * named by `addedTo`. An entry without a budget is information only (the dependency floor).
 *
 * Prints one table, each row with its budget, and exits non-zero when an entry is over its budget
 * with either bundler, or when a bundler warns (e.g. about an import it ignored).
 *
 * `npm run size -- --modules` also prints, per entry, what each dependency and each state machine
 * costs (the gzip bytes the esbuild bundle loses when that part is left out; parts share code,
 * so these do not add up) and every module's share of the minified esbuild output, largest first.
 * @module
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import * as esbuild from 'esbuild';
import { build as viteBuild } from 'vite';

const dir = fileURLToPath(new URL('./size/', import.meta.url));
const root = fileURLToPath(new URL('..', import.meta.url));

/**
 * The entries. `name` is the row's label, `file` the app in `scripts/size/`, `budgetKb` the most
 * it may weigh in kB of gzip output: `{ esbuild, vite }`, or one number for both bundlers. With
 * `addedTo` (another entry's `file`) the row measures what the app adds to that one. An entry
 * without `budgetKb` is information only. Budgets only go down: lower one when its entry shrinks.
 */
const ENTRIES = [
  // The two agents' budgets are the ceilings they reached once every feature reachable from
  // `AgentConfig` was in (no bundler can drop those). Capabilities added since ship as entries of
  // their own, so these do not grow. xstate, zod and rxjs are most of it (the floor row below).
  { name: 'minimal agent', file: 'minimal-agent.js', budgetKb: { esbuild: 77.5, vite: 72.5 } },
  {
    name: 'agent with a custom provider',
    file: 'custom-provider-agent.js',
    budgetKb: { esbuild: 71.5, vite: 67 },
  },
  { name: 'defineTool alone', file: 'define-tool.js', budgetKb: 5 },
  // No budget: what the dependencies alone weigh (see the file), the floor under the two agents.
  { name: 'the dependencies alone (floor)', file: 'dependency-floor.js' },
  // What `youyou-agent/mcp` adds to an app: this app's size minus the minimal agent's.
  {
    name: 'mcpServer, added to the minimal agent',
    file: 'mcp-agent.js',
    addedTo: 'minimal-agent.js',
    budgetKb: 5,
  },
  // Information only: what PostgresSessionStorage on pgClient adds to the minimal agent.
  { name: 'PostgresSessionStorage, added', file: 'postgres-storage.js', addedTo: 'minimal-agent.js' },
  // No budget: the minimal agent on OpenAIResponsesProvider instead of OpenAIProvider.
  { name: 'minimal agent on the Responses API', file: 'responses-agent.js' },
  // The browser side of an agent on a server: RemoteAgent and one session's conversation.
  { name: 'RemoteAgent (youyou-agent/remote)', file: 'remote-agent.js', budgetKb: 15 },
  // What `youyou-agent/otel` (with `@opentelemetry/api`) adds to an app: this app's size minus the minimal agent's.
  {
    name: 'otelPlugin, added to the minimal agent',
    file: 'otel-agent.js',
    addedTo: 'minimal-agent.js',
    budgetKb: 5.5,
  },
  // No budget: the handler runs on a server; information only.
  { name: 'createAgentHandler (youyou-agent/server)', file: 'server-handler.js' },
];

const BUNDLERS = ['esbuild', 'vite'];
/** An entry's budget for one bundler, in kB (undefined: no budget). */
const budgetFor = (budgetKb, bundler) => (typeof budgetKb === 'number' ? budgetKb : budgetKb?.[bundler]);

/** The parts whose cost `--modules` reports: packages, and the state machines of this one. */
const PARTS = [
  ...['xstate', 'zod', 'rxjs', 'idb', 'openai'].map((name) => ({ name, external: [name, `${name}/*`] })),
  ...['turn', 'session', 'agent'].map((name) => ({
    name: `machines/${name}.machine`,
    external: [`*/${name}.machine.js`],
  })),
];

const TARGET = 'es2022';
const showModules = process.argv.includes('--modules');

const kb = (bytes) => bytes / 1024;
const gzipBytes = (code) => gzipSync(code, { level: 9 }).length;
const warnings = [];

/** One esbuild bundle, minified, without code splitting. */
async function esbuildBundle(entry, external = []) {
  const result = await esbuild.build({
    entryPoints: [entry],
    absWorkingDir: root,
    bundle: true,
    minify: true,
    splitting: false,
    format: 'esm',
    platform: 'browser',
    target: TARGET,
    define: { 'process.env.NODE_ENV': '"production"' },
    legalComments: 'none',
    // Not the repository's tsconfig.json: its `paths` map `youyou-agent` to `src/` (for the demo
    // and the tests), and the apps must bundle `dist/` as a user's bundler does.
    tsconfigRaw: '{}',
    external,
    metafile: true,
    write: false,
    logLevel: 'silent',
  });
  if (external.length === 0) {
    const messages = await esbuild.formatMessages(result.warnings, { kind: 'warning' });
    warnings.push(...messages.map((text) => `esbuild, ${entry}:\n${text}`));
  }
  return result;
}

/** esbuild: gzip bytes, and the per-module share of the minified output. */
async function withEsbuild(entry) {
  const result = await esbuildBundle(entry);
  const [output] = result.outputFiles;
  const meta = Object.values(result.metafile.outputs)[0];
  const modules = Object.entries(meta.inputs)
    .map(([path, { bytesInOutput }]) => ({ path, bytes: bytesInOutput }))
    .filter((module) => module.bytes > 0)
    .sort((a, b) => b.bytes - a.bytes);
  return { gzip: gzipBytes(output.contents), minified: output.contents.length, modules };
}

/** What each part costs: the gzip bytes the bundle loses when the part is left out of it. */
async function partCosts(entry, total) {
  const costs = [];
  for (const { name, external } of PARTS) {
    const result = await esbuildBundle(entry, external);
    costs.push({ name, gzip: total - gzipBytes(result.outputFiles[0].contents) });
  }
  return costs.filter((cost) => cost.gzip > 0);
}

/**
 * A Vite app build (its default minifier): the entry chunk and every chunk it imports
 * statically, i.e. what loads before the app runs. Chunks loaded by `import()` only are left out.
 */
async function withVite(entry) {
  const result = await viteBuild({
    configFile: false,
    root,
    logLevel: 'silent',
    customLogger: {
      info() {},
      warn: (message) => warnings.push(`vite, ${entry}: ${message}`),
      warnOnce: (message) => warnings.push(`vite, ${entry}: ${message}`),
      error: (message) => warnings.push(`vite, ${entry}: ${message}`),
      clearScreen() {},
      hasErrorLogged: () => false,
      hasWarned: false,
    },
    build: {
      write: false,
      target: TARGET,
      minify: true,
      modulePreload: false,
      reportCompressedSize: false,
      rolldownOptions: {
        input: entry,
        onLog: (level, log) => {
          if (level === 'warn') warnings.push(`vite, ${entry}: ${log.message}`);
        },
      },
    },
  });
  const outputs = (Array.isArray(result) ? result : [result]).flatMap((r) => r.output);
  const chunks = new Map(outputs.filter((o) => o.type === 'chunk').map((chunk) => [chunk.fileName, chunk]));
  const loaded = new Set();
  const visit = (chunk) => {
    if (loaded.has(chunk)) return;
    loaded.add(chunk);
    for (const name of chunk.imports) visit(chunks.get(name));
  };
  for (const chunk of chunks.values()) if (chunk.isEntry) visit(chunk);
  let gzip = 0;
  for (const chunk of loaded) gzip += gzipBytes(chunk.code);
  return { gzip, lazyChunks: chunks.size - loaded.size };
}

try {
  readFileSync(new URL('../dist/index.js', import.meta.url));
} catch {
  console.error('size: dist/ is missing; run `npm run build` first (`npm run size` does).');
  process.exit(1);
}

const rows = [];
const measured = new Map();
/** Both bundlers' figures of one app, measured once. */
async function measure(file) {
  if (!measured.has(file)) {
    const entry = `${dir}${file}`;
    measured.set(file, { esb: await withEsbuild(entry), vite: await withVite(entry) });
  }
  return measured.get(file);
}

for (const { name, file, addedTo, budgetKb } of ENTRIES) {
  const entry = `${dir}${file}`;
  let { esb, vite } = await measure(file);
  if (addedTo) {
    const base = await measure(addedTo);
    esb = { ...esb, gzip: esb.gzip - base.esb.gzip, minified: esb.minified - base.esb.minified };
    vite = { ...vite, gzip: vite.gzip - base.vite.gzip };
  }
  const gzip = { esbuild: esb.gzip, vite: vite.gzip };
  const budgets = BUNDLERS.map((bundler) => budgetFor(budgetKb, bundler));
  // Bytes against bytes: a row printed as 77.5 kB may be 77.52 kB, over a 77.5 kB budget.
  const over = BUNDLERS.filter((bundler, i) => budgets[i] !== undefined && gzip[bundler] > budgets[i] * 1024);
  const status = budgets.every((budget) => budget === undefined) ? '' : over.length > 0 ? 'FAIL' : 'ok';
  const costs = showModules ? await partCosts(entry, esb.gzip) : [];
  rows.push({ name, esb, vite, budgets, over, status, costs });
}

const fmt = (bytes) => `${kb(bytes).toFixed(1)} kB`;
const fmtBudget = ([esbuildKb, viteKb]) =>
  esbuildKb === undefined && viteKb === undefined
    ? ''
    : esbuildKb === viteKb
      ? `${esbuildKb} kB`
      : `${esbuildKb ?? '-'} / ${viteKb ?? '-'} kB`;
const table = [
  ['entry (min + gzip -9)', 'esbuild', 'vite', 'budget (esbuild / vite)', ''],
  ...rows.map((row) => [
    row.name,
    fmt(row.esb.gzip),
    fmt(row.vite.gzip) + (row.vite.lazyChunks ? ` (+${row.vite.lazyChunks} lazy)` : ''),
    fmtBudget(row.budgets),
    row.status,
  ]),
];
const widths = table[0].map((_, i) => Math.max(...table.map((line) => line[i].length)));
for (const line of table) {
  console.log(
    line.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  '),
  );
}

if (showModules) {
  for (const row of rows) {
    const parts = row.costs.map((cost) => `${cost.name} ${fmt(cost.gzip)}`).join(' · ');
    console.log(`\n${row.name} (esbuild ${fmt(row.esb.gzip)}), without each part: ${parts}`);
    console.log(`${row.esb.minified.toLocaleString('en').padStart(9)}  bytes minified, by module:`);
    for (const { path, bytes } of row.esb.modules) {
      console.log(`${bytes.toLocaleString('en').padStart(9)}  ${path.replace(/^.*node_modules\//, '')}`);
    }
  }
}

for (const warning of warnings) console.error(`\n${warning}`);
const failed = rows.filter((row) => row.status === 'FAIL');
if (failed.length > 0) {
  const which = failed.map((row) => `${row.name} (${row.over.join(', ')})`).join('; ');
  console.error(`\nover budget: ${which}`);
}
if (failed.length > 0 || warnings.length > 0) process.exitCode = 1;
