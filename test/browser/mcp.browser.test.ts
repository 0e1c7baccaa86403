/**
 * MCP servers from real Chromium: the page's origin differs from the server's, so the browser
 * applies CORS. A server that does not expose `Mcp-Session-Id` gives an error that names the
 * header; one that does works, and its tool list is kept in the page's IndexedDB across a reload.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { startMcpServer, type McpTestServer } from '../support/mcp-server.js';
import { PageError, type HarnessPage } from './harness.js';
import { useChromium } from './use-chromium.js';

const SLOW = { timeout: 60_000 };
const PAGE_ENTRY = fileURLToPath(new URL('./mcp.page.ts', import.meta.url));

const chromium = useChromium(PAGE_ENTRY, { firstPage: true });
const servers: McpTestServer[] = [];

afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
});

const page = (): HarnessPage => chromium.page();

async function serve(exposeSessionId: boolean) {
  const server = await startMcpServer({ tools: [{ name: 'search' }], cors: { exposeSessionId } });
  servers.push(server);
  return server;
}

describe('MCP servers from a browser page (Chromium)', SLOW, () => {
  it('a server that sends the CORS headers offers its tools', async () => {
    const server = await serve(true);
    expect(await page().call('listTools', server.url, false)).toEqual(['search']);
  });

  it('a server without Access-Control-Expose-Headers: Mcp-Session-Id gives an error that names it', async () => {
    const server = await serve(false);
    const error = await page()
      .call('listTools', server.url, false)
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(error).toBeInstanceOf(PageError);
    expect((error as PageError).code).toBe('TOOL_SOURCE_UNAVAILABLE');
    expect((error as PageError).message).toContain('Access-Control-Expose-Headers: Mcp-Session-Id');
    // The server did get a session: only the browser hid its id.
    expect(server.log[0]!.rpc).toEqual(['initialize']);
  });

  it('after a page reload the tool list comes from IndexedDB: the server is asked nothing', async () => {
    const server = await serve(true);
    expect(await page().call('listTools', server.url, true)).toEqual(['search']);
    await page().reload();
    const seen = server.log.length;
    expect(await page().call('listTools', server.url, true)).toEqual(['search']);
    expect(server.log.slice(seen)).toEqual([]);
  });
});
