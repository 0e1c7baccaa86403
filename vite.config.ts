import { defineConfig } from 'vitest/config';

/**
 * One config for the library build and the tests.
 * - `vite build`: ESM library with four entries, `src/index.ts` (`youyou-agent`), `src/openai.ts`
 *   (`youyou-agent/openai`), `src/testing/index.ts` (`youyou-agent/testing`) and `src/mcp.ts`
 *   (`youyou-agent/mcp`), emitted one file
 *   per module so an app's bundler drops every module it does not use. Every runtime dependency
 *   stays external (the app's bundler dedupes them). Declarations come from
 *   `tsc -p tsconfig.build.json` (see `npm run build`).
 * - `vitest run`: unit, contract and end-to-end tests under `test/`, plus type tests
 *   (`*.test-d.ts`) checked by `tsc`.
 */
const external = [
  /^xstate(\/|$)/,
  /^zod(\/|$)/,
  /^rxjs(\/|$)/,
  /^idb(\/|$)/,
  /^minisearch(\/|$)/,
  /^openai(\/|$)/,
  /^node:/,
  /^pg(\/|$)/,
  /^@electric-sql\/pglite(\/|$)/,
  /^@opentelemetry\/api(\/|$)/,
];

export default defineConfig({
  build: {
    target: 'es2022',
    sourcemap: true,
    minify: false,
    lib: {
      entry: {
        index: 'src/index.ts',
        openai: 'src/openai.ts',
        testing: 'src/testing/index.ts',
        mcp: 'src/mcp.ts',
        server: 'src/server.ts',
        remote: 'src/remote.ts',
        postgres: 'src/postgres.ts',
        otel: 'src/otel.ts',
      },
      formats: ['es'],
    },
    rolldownOptions: {
      external,
      // An inlined constant would leave a bare `import './x.js'` behind, which an app's bundler
      // reports as ignored (the package has no side effects); keep imports as bindings.
      optimization: { inlineConst: false },
      // `src/x.ts` → `dist/x.js`, `machines/y.ts` → `dist/machines/y.js`.
      output: { preserveModules: true, preserveModulesRoot: 'src', entryFileNames: '[name].js' },
    },
  },
  test: {
    include: ['test/**/*.test.ts'],
    // One real PostgreSQL server for the run (the postgres tests make a database each).
    globalSetup: ['test/support/postgres-server.ts'],
    testTimeout: 20_000,
    // The dropped-session-handle tests force garbage collection (global.gc).
    execArgv: ['--expose-gc'],
    typecheck: {
      enabled: true,
      include: ['test/**/*.test-d.ts'],
      tsconfig: './tsconfig.json',
    },
  },
});
