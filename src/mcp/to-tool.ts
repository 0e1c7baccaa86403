/**
 * An MCP tool as a {@link ToolHandler}: its name, its JSON Schema as the parameters the model sees,
 * `mutating` and `needsApproval` from its annotations, and its result as a tool output.
 * @module
 */
import * as z from 'zod/mini';
import type { $ZodType } from 'zod/v4/core';
import type { ToolHandler } from '../ports/tool-handler.js';
import type { JsonSchema, ToolOutput } from '../types.js';
import type { McpCallToolResult, McpContentBlock, McpServerOptions, McpToolInfo } from './types.js';

/** Runs one `tools/call` by the tool's original name. */
export type CallTool = (
  name: string,
  args: Record<string, unknown>,
  signal: AbortSignal,
) => Promise<McpCallToolResult>;

/**
 * Parameters that accept any object and show the model `schema` itself. Validating against the
 * server's JSON Schema here would need a JSON Schema validator in the bundle; the server
 * validates its arguments anyway, and its error reaches the model as the call's result.
 * @example
 * toolParametersJsonSchema({ parameters: jsonSchemaParameters({ type: 'object', required: ['q'] }) });
 * // { type: 'object', required: ['q'] }
 */
export function jsonSchemaParameters(schema: JsonSchema): $ZodType<Record<string, unknown>> {
  const parameters = z.looseObject({});
  // zod merges a schema's registered metadata into the JSON Schema it derives, so this shows
  // the server's schema; `undefined` drops what zod would add (and `id` would move it to $defs).
  z.globalRegistry.add(parameters, {
    properties: undefined,
    additionalProperties: undefined,
    ...schema,
    type: 'object',
    id: undefined,
  } as Record<string, unknown>);
  return parameters;
}

/**
 * Whether a call of `tool` waits for approval. Annotations are hints of a server that may not
 * be trustworthy: a tool without them is taken as destructive, `'always'` asks whatever they say,
 * and only `'destructive'` lets `readOnlyHint: true` or `destructiveHint: false` skip the question
 * (an explicit `destructiveHint: true` always asks under it).
 */
export function needsApproval(tool: McpToolInfo, approval: McpServerOptions['approval']): boolean {
  if (approval === 'never') return false;
  if (approval === 'always') return true;
  const hints = tool.annotations ?? {};
  if (hints.destructiveHint === true) return true;
  return !(hints.readOnlyHint === true || hints.destructiveHint === false);
}

/** A `tools/call` result as the model reads it: text blocks joined, other blocks named. */
export function toolOutputOf(result: McpCallToolResult): ToolOutput {
  let content = (Array.isArray(result?.content) ? result.content : []).map(blockText).join('\n');
  if (!content && result?.structuredContent !== undefined) content = JSON.stringify(result.structuredContent);
  return result?.isError === true ? { content, isError: true } : { content };
}

function blockText(block: McpContentBlock): string {
  const b = block as Record<string, any>;
  if (b.type === 'text') return String(b.text);
  if (b.type === 'resource') return b.resource?.text ?? `[resource ${b.resource?.uri}]`;
  if (b.type === 'resource_link') return `[resource ${b.uri}]`;
  return `[${b.type}${b.mimeType ? ` ${b.mimeType}` : ''}]`;
}

/** `tool` as a tool of the agent, named `name`, calling through `call`. */
export function toToolHandler(
  tool: McpToolInfo,
  name: string,
  approval: McpServerOptions['approval'],
  call: CallTool,
): ToolHandler {
  return {
    name,
    description: tool.description ?? tool.title ?? '',
    parameters: jsonSchemaParameters(tool.inputSchema ?? {}),
    mutating: tool.annotations?.readOnlyHint !== true,
    needsApproval: needsApproval(tool, approval),
    execute: async ({ arguments: args, signal }) =>
      toolOutputOf(await call(tool.name, args as Record<string, unknown>, signal)),
  };
}
