#!/usr/bin/env node
/**
 * Writes `dist/node/`: the package's four entries bundled for Node, which the package's
 * `exports` give to Node through the `node` condition.
 *
 * Why a second layout: bundlers get `dist/*.js`, one file per module, so an app's build drops
 * every module it does not use. Node has no such step: it resolves, reads and compiles each of
 * those 130-odd files at start-up, which alone cost ≈ 50 ms of an import. Here the entries are
 * bundled with code splitting, so modules the entries share (errors, schemas, the runtime) exist
 * once: `AgentError` from `youyou-agent` is the class `youyou-agent/testing` throws, and work
 * the source loads by `import()` (memory extraction, the OpenAI provider behind
 * `ProviderRegistry.registerWithConfig`) still loads only when used. Dependencies stay external,
 * as in `dist/*.js`.
 *
 * Run by `npm run build` after `vite build`; `node scripts/build-node.mjs <dist dir>` for another
 * copy of the build (the bench's).
 * @module
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

/** The package's entries, as its `exports` name them: `.` → `index`, `./openai` → `openai`, … */
const ENTRIES = Object.keys(
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).exports,
)
  .filter((key) => key !== './package.json')
  .map((key) => (key === '.' ? 'index' : key.slice(2)));

/** Bundles the entries of the built package in `distDir` into `distDir/node/`. */
export async function buildNode(distDir) {
  const dir = distDir.endsWith('/') ? distDir : `${distDir}/`;
  const result = await esbuild.build({
    entryPoints: ENTRIES.map((name) => `${dir}${name}.js`),
    outdir: `${dir}node`,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    sourcemap: true,
    // Whitespace and syntax only (names stay, and the source maps lead back to `src/`): Node
    // parses a third less text at start-up, about 4 ms of an import.
    minifyWhitespace: true,
    minifySyntax: true,
    chunkNames: 'chunks/[name]-[hash]',
    legalComments: 'none',
    logLevel: 'warning',
  });
  if (result.warnings.length > 0) throw new Error('build-node: esbuild warned (see above)');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await buildNode(process.argv[2] ?? fileURLToPath(new URL('../dist/', import.meta.url)));
}
