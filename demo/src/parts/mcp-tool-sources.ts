/**
 * The demo's MCP servers as tool sources: one `mcpServer` per URL of the "MCP servers" setting.
 * A server that is down costs its tools, not the turn (a non-fatal error in the banner).
 * @module
 */
import type { ToolSource } from 'youyou-agent';
import { mcpServer } from 'youyou-agent/mcp';

/**
 * One source per valid `http(s)` URL of `list` (one per line), named `mcp1`, `mcp2`, …; with
 * more than one, tool names are prefixed so that two servers' tools cannot collide.
 * @example
 * mcpToolSources('http://127.0.0.1:5174/mcp'); // [ToolSource 'mcp1']
 */
export function mcpToolSources(list: string): ToolSource[] {
  const urls = list
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => /^https?:\/\/\S+$/.test(line));
  return urls.map((url, i) =>
    mcpServer({ name: `mcp${i + 1}`, url, toolNames: urls.length > 1 ? 'prefixed' : 'original' }),
  );
}
