/**
 * Runs one tool's `execute` under the tool timeout, turning every way it can end (a value, a
 * throw, a timeout, a malformed return) into a {@link ToolOutput}.
 * @module
 */
import * as z from 'zod/mini';
import { Errors } from '../errors.js';
import type { ToolExecuteInput, ToolHandler } from '../ports/tool-handler.js';
import type { ToolOutput } from '../types.js';
import { ToolResultTexts } from './tool-result-texts.js';

/** The longest delay `setTimeout` honours; longer ones would fire at once. */
const MAX_TIMER_MS = 2_147_483_647;
const TIMED_OUT = Symbol('timed out');

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
): Promise<ToolOutput> {
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<typeof TIMED_OUT>((resolve) => {
    timer = setTimeout(
      () => {
        // Settle the race first, so a tool that rejects on abort is still reported as timed out.
        resolve(TIMED_OUT);
        controller.abort(Errors.toolTimeout(tool.name, timeoutMs));
      },
      Math.min(timeoutMs, MAX_TIMER_MS),
    );
  });
  try {
    // Through `then` so a synchronous throw in `execute` becomes a rejection like any other.
    const running = Promise.resolve().then(() => tool.execute({ ...input, signal: controller.signal }));
    const returned = await Promise.race([running, timedOut]);
    if (returned === TIMED_OUT) return { content: ToolResultTexts.timedOut(timeoutMs), isError: true };
    return normalizeOutput(tool.name, returned);
  } catch (error) {
    return { content: ToolResultTexts.failed(tool.name, error), isError: true };
  } finally {
    clearTimeout(timer);
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
