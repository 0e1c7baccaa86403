// Writes dist/index.d.ts, dist/openai.d.ts, dist/testing.d.ts and dist/mcp.d.ts: thin entry points onto the declarations that
// `tsc -p tsconfig.build.json` emitted under dist/types (which mirror the source tree).
import { readFileSync, writeFileSync } from 'node:fs';

const entries = {
  index: './types/src/index.js',
  openai: './types/src/openai.js',
  testing: './types/src/testing/index.js',
  mcp: './types/src/mcp.js',
  server: './types/src/server.js',
  remote: './types/src/remote.js',
  postgres: './types/src/postgres.js',
  otel: './types/src/otel.js',
};
// Every entry of the package's `exports` needs its declarations here.
const exported = Object.keys(
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).exports,
);
for (const key of exported) {
  const name = key === '.' ? 'index' : key.slice(2);
  if (!(name in entries)) throw new Error(`write-dts-entries: no declarations named for the export '${key}'`);
}
for (const [name, target] of Object.entries(entries)) {
  writeFileSync(new URL(`../dist/${name}.d.ts`, import.meta.url), `export * from '${target}';\n`);
}
