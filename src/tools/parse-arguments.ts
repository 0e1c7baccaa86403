/**
 * Parsing a tool call's raw arguments — one rule for the history and the dispatcher, so the
 * `tool_call` message and the executed call agree. The reverse, for the wire, is in
 * `raw-arguments.ts`.
 * @module
 */

/**
 * Parses the model's raw arguments. Empty (or blank) text means "no arguments" (`{}`): some
 * OpenAI-compatible servers send `""` for a tool without parameters.
 */
export function parseJsonArguments(
  raw: string,
): { ok: true; value: unknown } | { ok: false; problem: unknown } {
  if (raw.trim() === '') return { ok: true, value: {} };
  try {
    return { ok: true, value: JSON.parse(raw) as unknown };
  } catch (error) {
    return { ok: false, problem: error };
  }
}

/** The arguments as the history keeps them: parsed JSON, or the raw string when it is not JSON. */
export function toolCallArguments(raw: string): unknown {
  const parsed = parseJsonArguments(raw);
  return parsed.ok ? parsed.value : raw;
}
