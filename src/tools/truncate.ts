/**
 * The 1 MiB cap on tool output: an output longer than
 * {@link MAX_TOOL_OUTPUT_BYTES} UTF-8 bytes is cut at the last whole character within the limit
 * and {@link TRUNCATION_MARKER} is appended, before the event, the context and storage see it.
 * @module
 */

/** Appended to a cut output; a fixed text, so models and plugins can recognise it. */
export const TRUNCATION_MARKER = '\n\n[output truncated at 1MB]';

/** The most UTF-8 bytes of tool output kept (1 MiB); the marker comes on top. */
export const MAX_TOOL_OUTPUT_BYTES = 1_048_576;

/**
 * One UTF-16 code unit never needs more than 3 UTF-8 bytes (a surrogate pair is 2 units for
 * 4 bytes), so strings up to this length always fit and are returned without encoding.
 */
const ALWAYS_FITS_LENGTH = Math.floor(MAX_TOOL_OUTPUT_BYTES / 3);

const encoder = new TextEncoder();
// Reused between calls: truncation is synchronous, so no two calls share it at the same time.
let scratch: Uint8Array | undefined;

/**
 * Cuts `content` to at most {@link MAX_TOOL_OUTPUT_BYTES} UTF-8 bytes, never inside a character,
 * and appends {@link TRUNCATION_MARKER} when it cut anything. Content within the limit is returned
 * as is (the same string).
 * @example
 * truncateToolOutput('é'.repeat(600_000)); // 524,288 × 'é' (1 MiB) + '\n\n[output truncated at 1MB]'
 */
export function truncateToolOutput(content: string): string {
  if (content.length <= ALWAYS_FITS_LENGTH) return content;
  scratch ??= new Uint8Array(MAX_TOOL_OUTPUT_BYTES);
  // encodeInto writes whole characters only and stops before one that would not fit, so `read`
  // is exactly the prefix that ends at the last whole character within the limit.
  const { read } = encoder.encodeInto(content, scratch);
  if (read >= content.length) return content;
  return content.slice(0, read) + TRUNCATION_MARKER;
}
