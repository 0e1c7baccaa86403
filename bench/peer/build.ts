/**
 * Builds what the peer bench's child processes run, into `bench/.build/` (git-ignored):
 * - the library as an app gets it: `vite build` with the repository's own config, laid out as an
 *   installed package (`node_modules/youyou-agent/`, its `package.json` fields copied), so
 *   `import 'youyou-agent'` resolves through the package's `exports` like in an app (Node gets `dist/node/`, see
 *   `scripts/build-node.mjs`);
 * - the bench's own processes (`bench/peer/processes/*.ts` with the types stripped), so the children run
 *   on plain `node` with no loader: nothing but the package itself is loaded or transformed at
 *   run time.
 * @module
 */
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { build, transformWithOxc } from 'vite';
// @ts-expect-error: a plain script of the repository, without declarations
import { buildNode } from '../../scripts/build-node.mjs';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const SOURCES = fileURLToPath(new URL('./processes/', import.meta.url));

/** Where the build goes. */
export const BUILD_DIR = fileURLToPath(new URL('../.build/', import.meta.url));

/** The installed copy of the package. */
export const PACKAGE_DIR = `${BUILD_DIR}node_modules/youyou-agent/`;

/** The built script of `bench/peer/processes/<name>.ts`. */
export const builtScript = (name: string): string => `${BUILD_DIR}processes/${name}.js`;

/** Builds the package and the bench scripts (a few seconds). */
export async function buildBench(): Promise<void> {
  await rm(BUILD_DIR, { recursive: true, force: true });
  await build({
    root: REPO,
    configFile: `${REPO}vite.config.ts`,
    logLevel: 'error',
    build: { outDir: `${PACKAGE_DIR}dist`, emptyOutDir: true },
  });
  await buildNode(`${PACKAGE_DIR}dist`);
  const manifest = JSON.parse(await readFile(`${REPO}package.json`, 'utf8')) as Record<string, unknown>;
  const fields = ['name', 'version', 'type', 'main', 'types', 'exports', 'sideEffects'];
  const installed = Object.fromEntries(
    fields.filter((key) => key in manifest).map((key) => [key, manifest[key]]),
  );
  await writeFile(`${PACKAGE_DIR}package.json`, `${JSON.stringify(installed, null, 2)}\n`);

  // A package scope of their own for the scripts: inside the repository's, `import 'youyou-agent'`
  // would resolve to the repository itself (a package may import itself by name), not to the copy.
  await writeFile(
    `${BUILD_DIR}package.json`,
    `${JSON.stringify({ name: 'youyou-agent-bench', private: true, type: 'module' }, null, 2)}\n`,
  );
  await mkdir(`${BUILD_DIR}processes`, { recursive: true });
  for (const file of await readdir(SOURCES)) {
    if (!file.endsWith('.ts')) continue;
    const source = await readFile(`${SOURCES}${file}`, 'utf8');
    const { code } = await transformWithOxc(source, file, { lang: 'ts', sourcemap: false });
    await writeFile(builtScript(file.slice(0, -3)), code);
  }
}
