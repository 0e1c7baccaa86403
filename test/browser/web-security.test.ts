/**
 * The browser every browser and end-to-end test runs in keeps web security on: a page may not
 * read a cross-origin answer that carries no CORS headers. The bundled Chromium's own argument
 * list (for serverless hosts) switches that off, and with it every CORS test would pass whatever
 * the code did; this file fails if any of that comes back.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser } from 'playwright-core';
import { resolveChromium, type ResolvedChromium } from './harness.js';

const UNSAFE = [
  '--disable-web-security',
  '--disable-site-isolation-trials',
  '--single-process',
  '--allow-running-insecure-content',
];

/** A server on 127.0.0.1 that answers `/data` with `ok`, with CORS headers only when `cors` is set. */
function dataServer(cors: boolean): Promise<Server> {
  const server = createServer((request, response) => {
    const headers: Record<string, string> = { 'content-type': 'text/plain' };
    if (cors) headers['access-control-allow-origin'] = '*';
    if (request.url === '/')
      response.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>page</title>');
    else response.writeHead(200, headers).end('ok');
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

const urlOf = (server: Server, path: string) =>
  `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`;

/** What the page's `fetch` of `url` gives: the text, or the name of the error it threw. */
async function fetchInPage(browser: Browser, pageUrl: string, url: string): Promise<string> {
  const page = await browser.newPage();
  try {
    await page.goto(pageUrl);
    return await page.evaluate(async (target) => {
      try {
        return await (await fetch(target)).text();
      } catch (error) {
        return `threw ${(error as Error).name}`;
      }
    }, url);
  } finally {
    await page.close();
  }
}

for (const which of ['the harness', 'bundled'] as const) {
  describe(`web security in ${which === 'bundled' ? 'the bundled Chromium' : "the harness's Chromium"}`, () => {
    let found: ResolvedChromium;
    let browser: Browser;
    const servers: Server[] = [];
    beforeAll(async () => {
      found = await resolveChromium(
        which === 'bundled' ? { ...process.env, CHROMIUM_PATH: '', YOUYOU_CHROMIUM: 'bundled' } : process.env,
      );
      browser = await chromium.launch({
        executablePath: found.executablePath,
        args: [...found.args],
        ...(found.env && { env: found.env }),
      });
      servers.push(await dataServer(false), await dataServer(false), await dataServer(true));
    }, 60_000);
    afterAll(async () => {
      await browser?.close();
      await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
    });

    it('starts without any argument that weakens the page', () => {
      expect(found.args.filter((arg) => UNSAFE.some((unsafe) => arg.startsWith(unsafe)))).toEqual([]);
    });

    it('refuses a cross-origin answer without CORS headers, and reads one with them', async () => {
      const [page, plain, cors] = servers as [Server, Server, Server];
      expect(await fetchInPage(browser, urlOf(page, '/'), urlOf(page, '/data'))).toBe('ok');
      expect(await fetchInPage(browser, urlOf(page, '/'), urlOf(plain, '/data'))).toBe('threw TypeError');
      expect(await fetchInPage(browser, urlOf(page, '/'), urlOf(cors, '/data'))).toBe('ok');
    });
  });
}
