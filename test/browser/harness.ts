/**
 * The Node side of the browser harness: bundles a page entry with Vite, serves it on
 * 127.0.0.1, opens it in Chromium through `playwright-core`, and calls the functions the page
 * exposed (`page-runtime.ts`). Used by the browser tests and by `npm run bench`.
 *
 * The browser is found by {@link resolveChromium}, and none found is an error: the tests that
 * need one fail with that message instead of being skipped.
 * @module
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type RequestListener, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, extname, join, normalize } from 'node:path';
import { chromium, type BrowserContext, type CDPSession, type Page } from 'playwright-core';
import { build, type PluginOption } from 'vite';
import { HARNESS_GLOBAL, type CallOutcome, type PageHarness } from './page-runtime.js';

/** Where system packages install Chromium or Chrome, in the order they are tried. */
export const SYSTEM_CHROMIUM_PATHS = [
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome',
  '/usr/bin/google-chrome-stable',
  '/snap/bin/chromium',
] as const;

/** How to start the browser the harness found. */
export interface ResolvedChromium {
  /** Where it was found: `CHROMIUM_PATH`, `system` or `bundled`. */
  readonly source: 'CHROMIUM_PATH' | 'system' | 'bundled';
  readonly executablePath: string;
  readonly args: readonly string[];
  /** The environment it needs, when it needs more than this process's. */
  readonly env?: Record<string, string>;
}

/**
 * Finds a browser for the harness, in this order:
 * 1. `CHROMIUM_PATH`, when set (an error if nothing is there);
 * 2. a system Chromium or Chrome ({@link SYSTEM_CHROMIUM_PATHS}), unless `YOUYOU_CHROMIUM=bundled`;
 * 3. the headless Chromium shipped inside the npm package `@sparticuz/chromium` (a dev
 *    dependency), unpacked into the temp folder on first use with the NSS libraries it links
 *    against, so it needs no system package.
 * Throws, saying what it tried, when none of them gives a browser.
 */
export async function resolveChromium(env: NodeJS.ProcessEnv = process.env): Promise<ResolvedChromium> {
  const explicit = env['CHROMIUM_PATH'];
  if (explicit) {
    if (!existsSync(explicit))
      throw new Error(`CHROMIUM_PATH is set to ${explicit}, but there is no file there`);
    return { source: 'CHROMIUM_PATH', executablePath: explicit, args: CHROMIUM_ARGS };
  }
  if (env['YOUYOU_CHROMIUM'] !== 'bundled') {
    const system = SYSTEM_CHROMIUM_PATHS.find((path) => existsSync(path));
    if (system) return { source: 'system', executablePath: system, args: CHROMIUM_ARGS };
  }
  try {
    return await bundledChromium();
  } catch (error) {
    const tried =
      env['YOUYOU_CHROMIUM'] === 'bundled'
        ? 'YOUYOU_CHROMIUM=bundled skips the system browsers'
        : `no browser at ${SYSTEM_CHROMIUM_PATHS.join(', ')}`;
    throw new Error(
      `Chromium is required for the browser tests: CHROMIUM_PATH is not set, ${tried}, and the ` +
        `Chromium of the dev dependency @sparticuz/chromium did not unpack (run 'npm ci'): ${String(error)}`,
      { cause: error },
    );
  }
}

/** The Chromium inside `@sparticuz/chromium`, unpacked, with its libraries and fonts. */
async function bundledChromium(): Promise<ResolvedChromium> {
  const { default: bundled, inflate } = await import('@sparticuz/chromium');
  const executablePath = await bundled.executablePath();
  // The package adds its NSS libraries only on Amazon Linux; any other Linux without a system
  // browser lacks them too, so they are unpacked and put first on the library path everywhere.
  const binDir = join(dirname(createRequire(import.meta.url).resolve('@sparticuz/chromium')), '..', 'bin');
  const libDir = join(await inflate(join(binDir, 'al2023.tar.br')), 'lib');
  const libraryPath = [libDir, process.env['LD_LIBRARY_PATH']].filter(Boolean).join(':');
  // `bundled.args` are for serverless hosts: they switch off web security, site isolation and
  // the multi-process model (`--disable-web-security`, `--single-process`, …), so a page would
  // run without CORS or the same-origin policy and a test of either could not fail. The binary
  // runs as a desktop headless browser with the same arguments a system Chromium gets.
  return {
    source: 'bundled',
    executablePath,
    args: CHROMIUM_ARGS,
    env: {
      ...(process.env as Record<string, string>),
      LD_LIBRARY_PATH: libraryPath,
      FONTCONFIG_PATH: join(tmpdir(), 'fonts'),
    },
  };
}

/** What every Chromium the harness starts gets: headless, and nothing that weakens the page's security. */
export const CHROMIUM_ARGS: readonly string[] = [
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

/** What a page bundle may need beyond its entry. */
export interface HarnessOptions {
  /** Vite plugins for the bundle (e.g. one that serves a module taken from the documentation). */
  readonly plugins?: PluginOption[];
  /**
   * Requests whose path starts with `prefix` go to `listener`, on the page's own origin: a page
   * that calls its server by a relative path (`/agent/chat`) reaches it without CORS.
   */
  readonly sameOrigin?: { readonly prefix: string; readonly listener: RequestListener };
}

/**
 * Bundles `entry` (a module that calls `exposeToHarness`) and starts Chromium on a profile on
 * disk (so IndexedDB is the real, disk-backed one, not the in-memory store of an incognito
 * context). Throws, saying what it tried, when there is no Chromium ({@link resolveChromium}).
 */
export async function openInChromium(entry: string, options: HarnessOptions = {}): Promise<BrowserHarness> {
  const browserToUse = await resolveChromium();
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
    await bundle(entry, outDir, options.plugins ?? []);
    servers.push(await serve(outDir, options.sameOrigin));
    context = await chromium.launchPersistentContext(join(workDir, 'profile'), {
      executablePath: browserToUse.executablePath,
      args: [...browserToUse.args],
      ...(browserToUse.env && { env: browserToUse.env }),
    });
    const browser = context;
    return {
      async open({ freshOrigin = false } = {}) {
        if (freshOrigin) servers.push(await serve(outDir, options.sameOrigin));
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
async function bundle(entry: string, outDir: string, plugins: PluginOption[]): Promise<void> {
  await build({
    configFile: false,
    logLevel: 'warn',
    plugins,
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

/**
 * Serves `dir` on 127.0.0.1 at a free port; `/` is a page that loads `/page.js`, and paths under
 * `sameOrigin.prefix` go to its listener.
 */
function serve(dir: string, sameOrigin?: HarnessOptions['sameOrigin']): Promise<Server> {
  const server = createServer((request, response) => {
    void (async () => {
      const path = new URL(request.url ?? '/', 'http://127.0.0.1').pathname;
      if (sameOrigin && path.startsWith(sameOrigin.prefix)) {
        sameOrigin.listener(request, response);
        return;
      }
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
