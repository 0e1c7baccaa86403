/**
 * `youyou-agent/mcp`: tools from MCP servers. `mcpServer(options)` is a tool source for
 * `AgentBuilder.registerToolSource`, with a small built-in Streamable HTTP client (or the
 * official SDK's `Client`, passed as `client`).
 * @module
 */
export { mcpServer } from './mcp/mcp-server.js';
export type {
  McpCallToolResult,
  McpClientLike,
  McpContentBlock,
  McpHeaders,
  McpServerOptions,
  McpToolInfo,
} from './mcp/types.js';
