import { defineConfig } from 'vitest/config';

/**
 * One config for the library build and the tests.
 * - `vite build`: ESM library of `src/index.ts` and `src/testing/index.ts`; every runtime
 *   dependency stays external (the app's bundler dedupes them). Declarations come from
 *   `tsc -p tsconfig.build.json` (see `npm run build`).
 * - `vitest run`: unit, contract and end-to-end tests under `test/`, plus type tests
 *   (`*.test-d.ts`) checked by `tsc`.
 */
const external = [/^xstate(\/|$)/, /^zod(\/|$)/, /^rxjs(\/|$)/, /^idb(\/|$)/, /^openai(\/|$)/];

export default defineConfig({
  build: {
    target: 'es2022',
    sourcemap: true,
    minify: false,
    lib: {
      entry: { index: 'src/index.ts', testing: 'src/testing/index.ts' },
      formats: ['es'],
    },
    rolldownOptions: { external },
  },
  test: {
    include: ['test/**/*.test.ts'],
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
