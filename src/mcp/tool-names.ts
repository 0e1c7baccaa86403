/**
 * The names MCP tools get: characters a model API accepts (`[A-Za-z0-9_-]`, at most 64), the
 * same name for the same tool every time.
 * @module
 */

const MAX = 64;

/**
 * `tool`, or `mcp_<server>__<tool>` when `prefixed`, with every other character made `_`. A name
 * over 64 characters keeps its first 55 and ends with `_` and 8 hex digits of a hash of the
 * whole, so two long names stay apart.
 * @example
 * toolName('docs', 'search', true); // 'mcp_docs__search'
 * toolName('docs', 'files.read', false); // 'files_read'
 */
export function toolName(server: string, tool: string, prefixed: boolean): string {
  const full = (prefixed ? `mcp_${server}__${tool}` : tool).replace(/[^A-Za-z0-9_-]/g, '_') || '_';
  return full.length <= MAX ? full : `${full.slice(0, MAX - 9)}_${fnv1a(full)}`;
}

/** FNV-1a (32 bits) as 8 hex digits. */
function fnv1a(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return (hash >>> 0).toString(16).padStart(8, '0');
}
