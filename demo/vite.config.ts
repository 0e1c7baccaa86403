/**
 * The browser demo's own Vite config (`npm start` serves it, `npm run demo:build` builds it).
 * The demo imports the library as an app would (`youyou-agent`, `youyou-agent/openai`); the
 * aliases point those names at this repository's sources, so no build of the library is needed.
 */
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const source = (path: string) => fileURLToPath(new URL(`../src/${path}`, import.meta.url));

/**
 * The endpoint settings that `OPENAI_BASE_URL`, `OPENAI_API_KEY` and `OPENAI_MODEL` pre-fill.
 * Only the dev server (`npm start`) reads them: a build must never carry an API key into files
 * that may be published.
 */
function endpointDefaults(command: 'serve' | 'build'): Record<string, string> {
  if (command !== 'serve') return {};
  const defaults: Record<string, string> = {};
  const read = (name: string, key: string) => {
    const value = process.env[name];
    if (value) defaults[key] = value;
  };
  read('OPENAI_BASE_URL', 'baseURL');
  read('OPENAI_API_KEY', 'apiKey');
  read('OPENAI_MODEL', 'model');
  return defaults;
}

export default defineConfig(({ command }) => ({
  root: fileURLToPath(new URL('.', import.meta.url)),
  resolve: {
    alias: [
      { find: /^youyou-agent$/, replacement: source('index.ts') },
      { find: /^youyou-agent\/openai$/, replacement: source('openai.ts') },
    ],
  },
  define: { __DEMO_ENDPOINT_DEFAULTS__: JSON.stringify(endpointDefaults(command)) },
  server: { host: '127.0.0.1', port: 5173, strictPort: true },
  preview: { host: '127.0.0.1', port: 4173 },
  build: { target: 'es2022', outDir: 'dist', emptyOutDir: true, sourcemap: true },
}));
