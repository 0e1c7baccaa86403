/**
 * The MCP shapes this entry reads and writes: a tool as `tools/list` describes it, a
 * `tools/call` result, and the client interface the official SDK's `Client` already has.
 * @module
 */
import type { JsonSchema } from '../types.js';

/** A tool as an MCP server lists it (`tools/list`). */
export interface McpToolInfo {
  name: string;
  title?: string;
  description?: string;
  /** The JSON Schema of the arguments (an object schema). */
  inputSchema: JsonSchema;
  /** Hints from the server, which may not be trustworthy. */
  annotations?: {
    title?: string;
    readOnlyHint?: boolean;
    destructiveHint?: boolean;
    idempotentHint?: boolean;
    openWorldHint?: boolean;
  };
}

/** One content block of a `tools/call` result. */
export type McpContentBlock =
  | { type: 'text'; text: string }
  | { type: 'image' | 'audio'; data: string; mimeType: string }
  | { type: 'resource'; resource: { uri: string; text?: string; blob?: string; mimeType?: string } }
  | { type: 'resource_link'; uri: string; name?: string }
  | { type: string; [key: string]: unknown };

/** A `tools/call` result. */
export interface McpCallToolResult {
  content?: McpContentBlock[];
  structuredContent?: unknown;
  isError?: boolean;
  [key: string]: unknown;
}

/**
 * What `mcpServer({ client })` needs of a client: the official SDK's `Client` (connected by the
 * app) has this shape, so OAuth, other transports and the rest of the protocol come from it.
 * @example
 * const client = new Client({ name: 'my-app', version: '1.0.0' });
 * await client.connect(new StreamableHTTPClientTransport(new URL(url), { authProvider }));
 * builder.registerToolSource(mcpServer({ name: 'docs', url, client }));
 */
export interface McpClientLike {
  listTools(
    params?: { cursor?: string },
    options?: { signal?: AbortSignal },
  ): Promise<{ tools: McpToolInfo[]; nextCursor?: string }>;
  /** `resultSchema` is the SDK's own parameter; the runtime passes `undefined` (its default). */
  callTool(
    params: { name: string; arguments?: Record<string, unknown> },
    resultSchema?: undefined,
    options?: { signal?: AbortSignal },
  ): Promise<McpCallToolResult>;
  close(): Promise<void>;
}

/** Headers sent with every request, or a function asked before each (e.g. for a fresh token). */
export type McpHeaders = Record<string, string> | (() => Promise<Record<string, string>>);

/** What {@link mcpServer} takes. */
export interface McpServerOptions {
  /** Names the server in errors and in prefixed tool names; the tool source's id. */
  name: string;
  /** The server's Streamable HTTP endpoint. */
  url: string | URL;
  headers?: McpHeaders;
  /**
   * `'original'` (default): the server's tool names (characters outside `[A-Za-z0-9_-]` become
   * `_`, clipped to 64). `'prefixed'`: `mcp_<name>__<tool>`, the same way.
   */
  toolNames?: 'original' | 'prefixed';
  /** The tools to offer: their original names, or a test. Default: all. */
  filter?: readonly string[] | ((tool: McpToolInfo) => boolean);
  /**
   * Which calls wait for approval. `'destructive'` (default): all but those the server marks
   * `readOnlyHint: true` (and not `destructiveHint: true`) or `destructiveHint: false`.
   * `'always'`: every call. `'never'`: none.
   */
  approval?: 'destructive' | 'always' | 'never';
  /** The tool-list cache (IndexedDB in browsers, memory elsewhere). Default `{ ttlMs: 86_400_000 }`. */
  cache?: false | { ttlMs?: number };
  /** A connected client to use instead of the built-in Streamable HTTP client. */
  client?: McpClientLike;
}
