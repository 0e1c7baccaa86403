/**
 * Runs one tool's `execute` under the tool timeout, turning every way it can end (a value, a
 * throw, a timeout, a malformed return) into a {@link ToolOutput}.
 * @module
 */
import * as z from 'zod/mini';
import { Errors } from '../errors.js';
import type { ToolExecuteInput, ToolHandler } from '../ports/tool-handler.js';
import type { ToolOutput } from '../types.js';
import { TIMED_OUT, withTimeout } from '../timeout.js';
import { systemClock, type Clock } from '../clock.js';
import { ToolResultTexts } from '../prompt/tool-result-texts.js';

// Not strict: a tool returning extra keys still has its content read (the extras are dropped).
const ReturnedOutputSchema = z.object({
  content: z.string(),
  isError: z.optional(z.boolean()),
  metadata: z.optional(z.unknown()),
});

/**
 * Calls `tool.execute` with a fresh `AbortSignal` that aborts (reason: `TOOL_TIMEOUT`) when
 * `timeoutMs` passes, so a cooperative tool stops. Never rejects: a throw, a timeout or a
 * malformed return becomes an output with `isError: true`.
 */
export async function executeWithTimeout(
  tool: ToolHandler,
  input: Omit<ToolExecuteInput<unknown>, 'signal'>,
  timeoutMs: number,
  clock: Clock = systemClock,
): Promise<ToolOutput> {
  const controller = new AbortController();
  try {
    // Through `then` so a synchronous throw in `execute` becomes a rejection like any other.
    const running = Promise.resolve().then(() => tool.execute({ ...input, signal: controller.signal }));
    const returned = await withTimeout(
      running,
      timeoutMs,
      () => controller.abort(Errors.toolTimeout(tool.name, timeoutMs)),
      clock,
    );
    if (returned === TIMED_OUT) return { content: ToolResultTexts.timedOut(timeoutMs), isError: true };
    return normalizeOutput(tool.name, returned);
  } catch (error) {
    return { content: ToolResultTexts.failed(tool.name, error), isError: true };
  }
}

/** A string becomes `{ content }`; an object must have a string `content`. */
function normalizeOutput(toolName: string, returned: unknown): ToolOutput {
  if (typeof returned === 'string') return { content: returned };
  const parsed = z.safeParse(ReturnedOutputSchema, returned);
  if (!parsed.success) return { content: ToolResultTexts.invalidOutput(toolName), isError: true };
  const output: ToolOutput = { content: parsed.data.content };
  if (parsed.data.isError !== undefined) output.isError = parsed.data.isError;
  if (parsed.data.metadata !== undefined) output.metadata = parsed.data.metadata;
  return output;
}
