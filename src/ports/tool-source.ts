import type { Observable } from 'rxjs';
import type { ToolHandler } from './tool-handler.js';

/**
 * Tools that come from elsewhere at run time (e.g. an MCP server). The runtime asks `tools()`
 * before each model request, within a deadline; a source that fails or is late is left out of that
 * request (or served from its cache) and reported as a non-fatal `TOOL_SOURCE_UNAVAILABLE`.
 * @example
 * const source: ToolSource = { id: 'clock', tools: async () => [nowTool] };
 * builder.registerToolSource(source);
 */
export interface ToolSource {
  /** Unique per agent; names the source in errors. */
  readonly id: string;
  /** The tools this source offers now. `signal` aborts when the deadline passes. */
  tools(signal: AbortSignal): Promise<readonly ToolHandler[]>;
  /** Emits when the list changed, so the runtime asks again. */
  readonly changes?: Observable<void>;
  /** Called once at `agent.shutdown()`. */
  close?(): Promise<void>;
}
