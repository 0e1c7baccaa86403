/**
 * The page bundle of the browser MCP tests: lists an MCP server's tools with `mcpServer` from
 * this page's origin, so the server is cross-origin and CORS applies as it does to an app.
 * @module
 */
import { mcpServer } from '../../src/mcp.js';
import { exposeToHarness } from './page-runtime.js';

exposeToHarness({
  /** The names of the server's tools; `cache` uses the page's IndexedDB. */
  async listTools(url: string, cache: boolean) {
    const source = mcpServer({ name: 'remote', url, ...(cache ? {} : { cache: false }) });
    try {
      return (await source.tools(new AbortController().signal)).map((tool) => tool.name);
    } finally {
      await source.close?.().catch(() => {});
    }
  },
});
