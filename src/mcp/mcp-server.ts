/**
 * `mcpServer()`: an MCP server's tools as a {@link ToolSource}.
 * @module
 */
import { Channel } from '../events/channel.js';
import { systemClock } from '../clock.js';
import { AgentError, describeError } from '../errors.js';
import * as Errors from '../error-constructors.js';
import type { ToolHandler } from '../ports/tool-handler.js';
import type { ToolSource } from '../ports/tool-source.js';
import { McpHttpClient } from './http-client.js';
import { toToolHandler } from './to-tool.js';
import { readToolList, writeToolList, type CachedToolList } from './tool-list-cache.js';
import { toolName } from './tool-names.js';
import type { McpClientLike, McpServerOptions, McpToolInfo } from './types.js';

/** A day: `tools/list_changed` (when the server sends it) invalidates sooner. */
const DEFAULT_TTL_MS = 86_400_000;

/** More pages than this is a server that loops. */
const MAX_PAGES = 100;

/**
 * The tools of the MCP server at `url`, for `AgentBuilder.registerToolSource`.
 * @example
 * builder.registerToolSource(mcpServer({ name: 'docs', url: 'https://mcp.example.com/mcp' }));
 */
export function mcpServer(options: McpServerOptions): ToolSource {
  const { name, approval = 'destructive', filter } = options;
  const url = String(options.url);
  const prefixed = options.toolNames === 'prefixed';
  const ttlMs = options.cache === false ? 0 : (options.cache?.ttlMs ?? DEFAULT_TTL_MS);
  const key = `${name} ${url}`;
  const changes = new Channel<void>({ replay: false });
  let kept: CachedToolList | undefined;
  let handlers: { from: CachedToolList; tools: readonly ToolHandler[] } | undefined;

  const client: McpClientLike =
    options.client ??
    new McpHttpClient(url, options.headers, () => {
      kept = undefined;
      void writeToolList(key, undefined).finally(() => changes.next());
    });

  const fresh = (list: CachedToolList | undefined): list is CachedToolList =>
    list !== undefined && systemClock.now() - list.fetchedAt < ttlMs;

  async function listAll(signal: AbortSignal): Promise<McpToolInfo[]> {
    const tools: McpToolInfo[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const result = await client.listTools(cursor === undefined ? {} : { cursor }, { signal });
      tools.push(...(result?.tools ?? []));
      cursor = result?.nextCursor;
      if (!cursor) break;
    }
    return tools;
  }

  const offered = (tool: McpToolInfo) =>
    filter === undefined || (typeof filter === 'function' ? filter(tool) : filter.includes(tool.name));

  const call = (tool: string, args: Record<string, unknown>, signal: AbortSignal) =>
    client.callTool({ name: tool, arguments: args }, undefined, { signal });

  return {
    id: name,
    changes: changes.observable,
    async tools(signal) {
      try {
        if (!fresh(kept)) {
          const stored = ttlMs > 0 ? await readToolList(key) : undefined;
          kept = fresh(stored) ? stored : { tools: await listAll(signal), fetchedAt: systemClock.now() };
          if (ttlMs > 0 && kept !== stored) await writeToolList(key, kept);
        }
        // The same list gives the same tool objects, so their JSON Schema is derived once.
        if (handlers?.from !== kept) {
          const tools = kept.tools
            .filter(offered)
            .map((tool) => toToolHandler(tool, toolName(name, tool.name, prefixed), approval, call));
          handlers = { from: kept, tools };
        }
        return handlers.tools;
      } catch (error) {
        throw AgentError.isInstance(error)
          ? error
          : Errors.toolSourceUnavailable(name, describeError(error), error);
      }
    },
    async close() {
      changes.complete();
      await client.close();
    },
  };
}
