/**
 * Runs one tool's `execute` under the tool timeout, turning every way it can end (a value, a
 * throw, a timeout, a malformed return) into a {@link ToolOutput}.
 * @module
 */
import * as z from 'zod/mini';
import type { AgentError } from '../errors.js';
import * as Errors from '../error-constructors.js';
import type { ToolExecuteInput, ToolHandler } from '../ports/tool-handler.js';
import type { ToolOutput } from '../types.js';
import { isThenable, TIMED_OUT, withTimeout } from '../timeout.js';
import { systemClock, type Clock } from '../clock.js';
import * as ToolResultTexts from '../prompt/tool-result-texts.js';

// Not strict: a tool returning extra keys still has its content read (the extras are dropped).
const ReturnedOutputSchema = z.object({
  content: z.string(),
  isError: z.optional(z.boolean()),
  metadata: z.optional(z.unknown()),
});

/**
 * Calls `tool.execute` with an `AbortSignal` that aborts (reason: `TOOL_TIMEOUT`) when
 * `timeoutMs` passes, so a cooperative tool stops. Never rejects: a throw, a timeout or a
 * malformed return becomes an output with `isError: true`.
 */
export async function executeWithTimeout(
  tool: ToolHandler,
  input: Omit<ToolExecuteInput<unknown>, 'signal'>,
  timeoutMs: number,
  clock: Clock = systemClock,
): Promise<ToolOutput> {
  // The signal is made when the tool first reads it (already aborted if that is after the
  // timeout): most tools never do, and an AbortController costs more than a trivial call.
  let controller: AbortController | undefined;
  let timedOut: AgentError | undefined;
  const call: ToolExecuteInput<unknown> = {
    ...input,
    get signal(): AbortSignal {
      if (controller === undefined) {
        controller = new AbortController();
        if (timedOut !== undefined) controller.abort(timedOut);
      }
      return controller.signal;
    },
  };
  try {
    const running: unknown = tool.execute(call);
    // A value returned synchronously needs no timer: the call is already over.
    const returned = isThenable(running)
      ? await withTimeout(
          running,
          timeoutMs,
          () => {
            timedOut = Errors.toolTimeout(tool.name, timeoutMs);
            controller?.abort(timedOut);
          },
          clock,
        )
      : running;
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
