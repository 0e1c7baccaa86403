// Writes dist/index.d.ts, dist/openai.d.ts, dist/testing.d.ts and dist/mcp.d.ts: thin entry points onto the declarations that
// `tsc -p tsconfig.build.json` emitted under dist/types (which mirror the source tree).
import { writeFileSync } from 'node:fs';

const entries = {
  index: './types/src/index.js',
  openai: './types/src/openai.js',
  testing: './types/src/testing/index.js',
  mcp: './types/src/mcp.js',
};
for (const [name, target] of Object.entries(entries)) {
  writeFileSync(new URL(`../dist/${name}.d.ts`, import.meta.url), `export * from '${target}';\n`);
}
