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
 * Prints one table. Exits non-zero when a bundler warns (e.g. about an import it ignored), or when
 * an entry is over its budget, unless the entry has an interim ceiling (see `ENTRIES`) and stays
 * under that: then the table says OVER and the run still passes, so a known excess is visible
 * without failing CI, while any growth beyond it fails.
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
 * The entries, their budgets and, for an entry not yet within its budget, the interim ceiling
 * CI holds it to (in kB of gzip output, for both bundlers). Lower a ceiling as the entry shrinks;
 * delete it once the entry fits its budget.
 */
const ENTRIES = [
  // xstate, zod (with its JSON Schema conversion) and rxjs alone are ≈ 32 kB of these; the state
  // machines (built at module scope) are ≈ 3 kB. The ceilings rose with features every agent
  // carries: cross-tab locks, writer fencing, drafts and resumable turns (+3.5 kB), tool sources
  // (+1.3 kB), human approval of tool calls (+3.0 kB), structured output and budgets (+4.0 kB:
  // the final_answer tool and its repairs, the partial-JSON parser, the budget plan and the
  // stored usage). The memory work loads by `import()`: a Vite build leaves it out of the initial
  // chunk (a 2.5 kB chunk of its own), while esbuild without code splitting inlines it and, for
  // every `import()` in the graph, wraps the imported module and all it imports in lazy
  // initialisers (≈ 1 kB here, with ProviderRegistry's `import()` of the OpenAI provider).
  // Budgets on compaction and memory requests added 0.4 kB; skipping the approval review when no
  // call can need approval, 0.2 kB. rxjs's Subject and BehaviorSubject gave way to the event
  // Channel (−0.5 / −0.8 kB). The Turn's one step runner instead of an invoked actor per step
  // (xstate's fromCallback and sendTo, and the runner) added 0.3 kB, and took a 25-round tool
  // turn from 1.4× the raw SDK's CPU to 0.9–1.0×.
  { name: 'minimal agent', file: 'minimal-agent.js', budgetKb: 55, ceilingKb: 77.5 },
  { name: 'agent with a custom provider', file: 'custom-provider-agent.js', budgetKb: 35, ceilingKb: 71.2 },
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
  // The browser side of an agent on a server: RemoteAgent and one session's conversation.
  { name: 'RemoteAgent (youyou-agent/remote)', file: 'remote-agent.js', budgetKb: 15 },
  // No budget: the handler runs on a server; information only.
  { name: 'createAgentHandler (youyou-agent/server)', file: 'server-handler.js' },
];

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

for (const { name, file, addedTo, budgetKb, ceilingKb } of ENTRIES) {
  const entry = `${dir}${file}`;
  let { esb, vite } = await measure(file);
  if (addedTo) {
    const base = await measure(addedTo);
    esb = { ...esb, gzip: esb.gzip - base.esb.gzip, minified: esb.minified - base.esb.minified };
    vite = { ...vite, gzip: vite.gzip - base.vite.gzip };
  }
  const largest = Math.max(kb(esb.gzip), kb(vite.gzip));
  const status =
    budgetKb === undefined
      ? ''
      : largest <= budgetKb
        ? 'ok'
        : ceilingKb !== undefined && largest <= ceilingKb
          ? 'OVER'
          : 'FAIL';
  const costs = showModules ? await partCosts(entry, esb.gzip) : [];
  rows.push({ name, esb, vite, budgetKb, ceilingKb, status, costs });
}

const fmt = (bytes) => `${kb(bytes).toFixed(1)} kB`;
const table = [
  ['entry (min + gzip -9)', 'esbuild', 'vite', 'budget', 'ceiling', ''],
  ...rows.map((row) => [
    row.name,
    fmt(row.esb.gzip),
    fmt(row.vite.gzip) + (row.vite.lazyChunks ? ` (+${row.vite.lazyChunks} lazy)` : ''),
    row.budgetKb === undefined ? '' : `${row.budgetKb} kB`,
    row.ceilingKb === undefined ? '' : `${row.ceilingKb} kB`,
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
const over = rows.filter((row) => row.status === 'OVER');
if (over.length > 0) {
  console.log(`\nover budget, within the interim ceiling: ${over.map((row) => row.name).join(', ')}`);
}
const failed = rows.filter((row) => row.status === 'FAIL');
if (failed.length > 0) console.error(`\nover budget: ${failed.map((row) => row.name).join(', ')}`);
if (failed.length > 0 || warnings.length > 0) process.exitCode = 1;
