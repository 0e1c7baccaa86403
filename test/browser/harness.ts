/**
 * The Node side of the browser harness: bundles a page entry with Vite, serves it on
 * 127.0.0.1, opens it in Debian's Chromium through `playwright-core`, and calls the functions
 * the page exposed (`page-runtime.ts`). Used by the browser tests and by `npm run bench`.
 *
 * There is no fallback: without `/usr/bin/chromium` {@link openInChromium} throws, so the tests
 * that need it fail with that message instead of being skipped.
 * @module
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { extname, join, normalize } from 'node:path';
import { chromium, type BrowserContext, type CDPSession, type Page } from 'playwright-core';
import { build } from 'vite';
import { HARNESS_GLOBAL, type CallOutcome, type PageHarness } from './page-runtime.js';

/** Where Debian's `chromium` package installs the browser. */
export const CHROMIUM_PATH = '/usr/bin/chromium';

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
  '--disable-sync',
];

/** One tab showing the page bundle. */
export interface HarnessPage {
  /** The page's origin, e.g. `http://127.0.0.1:41234`. */
  readonly origin: string;
  /** The Playwright page (for events, screenshots, ...). */
  readonly page: Page;
  /** Calls the page function `name`; rejects with the page's error if it threw. */
  call<T = unknown>(name: string, ...args: unknown[]): Promise<T>;
  /** Reloads the page and waits until its functions are exposed again. */
  reload(): Promise<void>;
  /** A Chrome DevTools Protocol session on the page (quota overrides, heap usage, ...). */
  cdp(): Promise<CDPSession>;
  /** Closes the tab. */
  close(): Promise<void>;
}

/** Chromium with a page bundle served on 127.0.0.1. */
export interface BrowserHarness {
  /**
   * Opens the page in a new tab. Tabs share the origin (and so its IndexedDB), unless
   * `freshOrigin` is set: then the page is served from another port, an origin with no data.
   */
  open(options?: { freshOrigin?: boolean }): Promise<HarnessPage>;
  /** Closes the browser, stops the servers and removes the bundle and the profile. */
  close(): Promise<void>;
}

/** An error raised inside the page, re-thrown in Node with the page's message and stack. */
export class PageError extends Error {
  /** The `AgentError` code, when the page threw one. */
  readonly code: string | undefined;
  constructor(fn: string, error: Extract<CallOutcome, { ok: false }>['error']) {
    super(`in the page, ${fn}(): ${error.message}`);
    this.name = `PageError(${error.name})`;
    this.code = error.code;
    if (error.stack) this.stack = `${this.name}: ${this.message}\n--- page stack ---\n${error.stack}`;
  }
}

/**
 * Bundles `entry` (a module that calls `exposeToHarness`) and starts Chromium on a profile on
 * disk (so IndexedDB is the real, disk-backed one, not the in-memory store of an incognito
 * context). Throws, naming the fix, when Chromium is not installed.
 */
export async function openInChromium(entry: string): Promise<BrowserHarness> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `Chromium is required for the browser tests but was not found at ${CHROMIUM_PATH}: install it with 'apt-get install -y chromium'`,
    );
  }
  const workDir = await mkdtemp(join(tmpdir(), 'youyou-browser-'));
  const outDir = join(workDir, 'bundle');
  const servers: Server[] = [];
  let context: BrowserContext | undefined;
  const close = async () => {
    await context?.close();
    await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
    await rm(workDir, { recursive: true, force: true });
  };
  try {
    await bundle(entry, outDir);
    servers.push(await serve(outDir));
    context = await chromium.launchPersistentContext(join(workDir, 'profile'), {
      executablePath: CHROMIUM_PATH,
      args: CHROMIUM_ARGS,
    });
    const browser = context;
    return {
      async open({ freshOrigin = false } = {}) {
        if (freshOrigin) servers.push(await serve(outDir));
        const port = (servers.at(-1)!.address() as AddressInfo).port;
        return openTab(browser, `http://127.0.0.1:${port}`);
      },
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

async function openTab(context: BrowserContext, origin: string): Promise<HarnessPage> {
  const page = await context.newPage();
  const pageErrors: Error[] = [];
  page.on('pageerror', (error) => pageErrors.push(error));
  const ready = async () => {
    await page
      .waitForFunction((name) => name in globalThis, HARNESS_GLOBAL, { timeout: 30_000 })
      .catch((error: unknown) => {
        const errors = pageErrors.length ? `: ${pageErrors.map(String).join('; ')}` : '';
        throw new Error(`the page never became ready${errors}`, { cause: error });
      });
  };
  await page.goto(`${origin}/`);
  await ready();
  return {
    origin,
    page,
    async call<T>(name: string, ...args: unknown[]): Promise<T> {
      const outcome = await page.evaluate(
        ([global, fn, fnArgs]) =>
          (globalThis as unknown as Record<string, PageHarness>)[global]!.call(fn, fnArgs),
        [HARNESS_GLOBAL, name, args] as const,
      );
      if (!outcome.ok) throw new PageError(name, outcome.error);
      return outcome.value as T;
    },
    async reload() {
      await page.reload();
      await ready();
    },
    cdp: () => context.newCDPSession(page),
    close: () => page.close(),
  };
}

/** Bundles `entry` and its imports into `outDir/page.js` (no project config: the library's lib mode is not wanted here). */
async function bundle(entry: string, outDir: string): Promise<void> {
  await build({
    configFile: false,
    logLevel: 'warn',
    build: {
      outDir,
      emptyOutDir: true,
      target: 'es2022',
      minify: false,
      sourcemap: 'inline',
      modulePreload: false,
      copyPublicDir: false,
      rolldownOptions: {
        input: entry,
        output: { entryFileNames: 'page.js', chunkFileNames: '[name]-[hash].js', format: 'es' },
      },
    },
  });
}

const PAGE_HTML =
  '<!doctype html><meta charset="utf-8"><title>youyou-agent harness</title><script type="module" src="/page.js"></script>';

/** Serves `dir` on 127.0.0.1 at a free port; `/` is a page that loads `/page.js`. */
function serve(dir: string): Promise<Server> {
  const server = createServer((request, response) => {
    void (async () => {
      const path = new URL(request.url ?? '/', 'http://127.0.0.1').pathname;
      if (path === '/') {
        response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE_HTML);
        return;
      }
      const file = normalize(join(dir, path));
      if (!file.startsWith(dir) || extname(file) !== '.js') {
        response.writeHead(404).end();
        return;
      }
      try {
        const body = await readFile(file);
        response.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' }).end(body);
      } catch {
        response.writeHead(404).end();
      }
    })();
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve(server));
  });
}
