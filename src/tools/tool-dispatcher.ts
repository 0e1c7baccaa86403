/**
 * `ToolDispatcher`: runs one batch of the model's tool calls.
 *
 * Batch: when every call names a read-only tool the calls run concurrently; when any names a
 * mutating tool the whole batch runs serially in call order. Results come back in call order.
 *
 * One call, in this order:
 * 1. parse the raw JSON arguments; look the tool up; validate the arguments with its schema.
 *    A failure here is an error result (start and end events are still emitted; no hooks run).
 * 2. a call denied approval (or refused as a repeat) gets that text as the result (no hooks, it
 *    does not run).
 *    Otherwise `before_tool_use` — `abort` gives the synthetic result `Tool aborted by hook: <reason>`
 *    (the tool does not run); `continue_with` arguments are validated again before they are used.
 * 3. cancellation check — a call that has not emitted `tool_call_start` when the turn is
 *    cancelled is skipped: no events, the result {@link TOOL_CALL_SKIPPED_TEXT}, `skipped: true`.
 * 4. `tool_call_start` with the final arguments.
 * 5. execute, bounded by the tool timeout (its own `AbortSignal`, not aborted by cancel).
 * 6. truncate to 1 MiB; `after_tool_use` (may replace the output; truncated again).
 * 7. `tool_call_end` with `durationMs` (execution time) and `success` (= not an error).
 * @module
 */
import * as z from 'zod/mini';
import { $ZodAsyncError, type $ZodIssue } from 'zod/v4/core';
import { describeError, toAgentError } from '../errors.js';
import * as Errors from '../error-constructors.js';
import type { AgentError } from '../errors.js';
import type { HookContext, HookRegistry } from '../hooks/hook-registry.js';
import { toolParametersJsonSchema } from '../ports/tool-handler.js';
import type { ToolHandler } from '../ports/tool-handler.js';
import type { AgentEventPayload, ToolOutput, ToolSpec } from '../types.js';
import { executeWithTimeout } from './execute-with-timeout.js';
import type { ToolCallRequest } from '../types.js';
import * as ToolResultTexts from '../prompt/tool-result-texts.js';
import { TOOL_CALL_SKIPPED_TEXT } from '../prompt/tool-result-texts.js';
import { truncateToolOutput } from './truncate.js';
import { systemClock, type Clock } from '../clock.js';
import { parseJsonArguments } from './parse-arguments.js';

export type { ToolCallRequest } from '../types.js';

/** How one call ended. */
export interface ToolCallResult {
  callId: string;
  toolName: string;
  /** Final arguments: the parsed JSON (maybe replaced by a hook), or the raw string when it was not valid JSON. */
  arguments: unknown;
  /** Final output: truncated, with any `after_tool_use` replacement applied (and truncated again). */
  output: ToolOutput;
  /** Whether the model should read the output as an error (`output.isError === true`). */
  isError: boolean;
  /** `true`: the call was not started because the turn was cancelled. */
  skipped: boolean;
  /**
   * `true`: the tool's `execute` ran. Not for an unknown tool, invalid arguments, a denied or
   * refused call, one a hook aborted, or a skipped one.
   */
  executed: boolean;
  /** Execution time in ms (0 when skipped). */
  durationMs: number;
}

/** What a batch needs from the turn running it. */
export interface ToolBatchContext {
  sessionId: string;
  turnId: string;
  /**
   * When aborted, calls that have not emitted `tool_call_start` yet are skipped; started ones
   * finish (their own signal is not aborted by a cancel).
   */
  cancelSignal: AbortSignal;
  /**
   * Asked right before each call starts: `false` (the session's lease ran out) skips it like a
   * cancel, since another instance may run the session's tools by then.
   */
  mayStart?(): boolean;
  /** Receives `tool_call_start` / `tool_call_end`. */
  emit(payload: AgentEventPayload): void;
  /** Receives non-fatal problems, e.g. `HOOK_FAILED` from a tool hook. */
  reportError(error: AgentError): void;
  /** Calls denied approval or refused as repeats, by id: the result text each gets instead of running. */
  denied?: ReadonlyMap<string, string>;
  /**
   * The tool sources' tools of the request these calls answer, by name (never a registered
   * tool's name). They run like registered ones.
   */
  sourcedTools?: ReadonlyMap<string, ToolHandler>;
  /**
   * Awaited before a mutating tool executes (never rejects): the runtime stores that the call
   * started, so a reload while it runs knows it may have taken effect.
   */
  beforeMutatingCall?(callId: string): Promise<void>;
}

/** Options of {@link ToolDispatcher}. */
export interface ToolDispatcherOptions {
  /** The registered tools, in registration order (names must be unique). */
  tools: readonly ToolHandler[];
  /** Per-call time limit in ms (`AgentConfig.toolTimeoutMs`). */
  timeoutMs: number;
  /** Where `before_tool_use` / `after_tool_use` handlers live. */
  hooks: HookRegistry;
  /** Durations and time limits. Default: the system clock. */
  clock?: Clock;
}

type ArgumentsCheck = { ok: true; value: unknown } | { ok: false; problem: string };
type ParseResult = { success: true; data: unknown } | { success: false; error: { issues: $ZodIssue[] } };

/** Runs batches of tool calls against the registered tools. */
export class ToolDispatcher {
  /** The tools as the model sees them, in registration order (computed once). */
  readonly specs: readonly ToolSpec[];
  readonly #tools: ReadonlyMap<string, ToolHandler>;
  readonly #names: readonly string[];
  readonly #mayNeedApproval: boolean;
  readonly #timeoutMs: number;
  readonly #clock: Clock;
  readonly #hooks: HookRegistry;

  /**
   * @throws AgentError `NAME_CONFLICT` for a repeated tool name, `INVALID_INPUT` for a tool whose
   * schema cannot be expressed as JSON Schema or a non-positive timeout.
   */
  constructor(options: ToolDispatcherOptions) {
    const { tools, timeoutMs, hooks } = options;
    this.#clock = options.clock ?? systemClock;
    if (typeof timeoutMs !== 'number' || !(timeoutMs > 0)) {
      throw Errors.invalidInput(`tool timeoutMs must be a positive number, got ${String(timeoutMs)}`);
    }
    const byName = new Map<string, ToolHandler>();
    const specs: ToolSpec[] = [];
    tools.forEach((tool, index) => {
      if (byName.has(tool.name)) throw Errors.nameConflict('tool', tool.name);
      byName.set(tool.name, tool);
      specs.push({ name: tool.name, description: tool.description, parameters: jsonSchemaOf(tool, index) });
    });
    this.#tools = byName;
    this.#names = [...byName.keys()];
    this.#mayNeedApproval = tools.some(
      (tool) => tool.needsApproval !== undefined && tool.needsApproval !== false,
    );
    this.specs = specs;
    this.#timeoutMs = timeoutMs;
    this.#hooks = hooks;
  }

  /** Whether a registered tool may ask for approval (`needsApproval` set and not `false`). */
  mayNeedApproval(): boolean {
    return this.#mayNeedApproval;
  }

  /** Whether a tool named `name` is registered. */
  has(name: string): boolean {
    return this.#tools.has(name);
  }

  /** The registered tool named `name`, else the source tool of that name in `sourced`. */
  tool(name: string, sourced?: ReadonlyMap<string, ToolHandler>): ToolHandler | undefined {
    return this.#tools.get(name) ?? sourced?.get(name);
  }

  /**
   * A call's arguments parsed and validated by its tool's schema, as its execution would get
   * them; `null` for an unknown tool or invalid arguments (the call's run reports those).
   */
  async validArguments(
    call: ToolCallRequest,
    sourced?: ReadonlyMap<string, ToolHandler>,
  ): Promise<{ value: unknown } | null> {
    const tool = this.tool(call.toolName, sourced);
    const parsed = parseJsonArguments(call.arguments);
    if (tool === undefined || !parsed.ok) return null;
    const checked = await validateArguments(tool, parsed.value, ToolResultTexts.invalidArguments);
    return checked.ok ? { value: checked.value } : null;
  }

  /** Whether `name` is a registered tool marked `mutating` (unknown names are not). */
  isMutating(name: string): boolean {
    return this.tool(name)?.mutating === true;
  }

  /**
   * Runs `calls` (concurrently when all are read-only, else serially in order) and resolves with
   * one result per call, in call order. Never rejects: every problem becomes an error result.
   */
  async runBatch(calls: readonly ToolCallRequest[], ctx: ToolBatchContext): Promise<ToolCallResult[]> {
    if (calls.some((call) => this.tool(call.toolName, ctx.sourcedTools)?.mutating === true)) {
      const results: ToolCallResult[] = [];
      for (const call of calls) results.push(await this.#runCallSafely(call, ctx));
      return results;
    }
    return Promise.all(calls.map((call) => this.#runCallSafely(call, ctx)));
  }

  #namesFor(ctx: ToolBatchContext): readonly string[] {
    return ctx.sourcedTools?.size ? [...this.#names, ...ctx.sourcedTools.keys()] : this.#names;
  }

  async #runCallSafely(call: ToolCallRequest, ctx: ToolBatchContext): Promise<ToolCallResult> {
    try {
      return await this.#runCall(call, ctx);
    } catch (error) {
      // Only a throwing `emit`/`reportError` gets here; the batch still resolves.
      try {
        ctx.reportError(toAgentError(error, 'TOOL_EXECUTION_ERROR'));
      } catch {
        // The sink itself is broken; the error result below still reaches the model.
      }
      const output = { content: ToolResultTexts.failed(call.toolName, error), isError: true };
      return {
        ...identify(call),
        arguments: call.arguments,
        output,
        isError: true,
        skipped: false,
        executed: false,
        durationMs: 0,
      };
    }
  }

  async #runCall(call: ToolCallRequest, ctx: ToolBatchContext): Promise<ToolCallResult> {
    const parsed = parseJsonArguments(call.arguments);
    let args: unknown = parsed.ok ? parsed.value : call.arguments;
    if (ctx.cancelSignal.aborted) return skippedResult(call, args);

    const hookCtx: HookContext = { sessionId: ctx.sessionId, turnId: ctx.turnId };
    const tool = this.tool(call.toolName, ctx.sourcedTools);
    let problem: string | null = null;
    let abortReason: string | null = null;
    let validArgs: unknown;

    // 1. Arguments: a problem here ends the call with an error result (no hooks).
    if (tool === undefined) problem = ToolResultTexts.unknownTool(call.toolName, this.#namesFor(ctx));
    else if (!parsed.ok) problem = ToolResultTexts.invalidJson(call.toolName, parsed.problem);
    else {
      let checked = validateArguments(tool, args, ToolResultTexts.invalidArguments);
      if (checked instanceof Promise) checked = await checked;
      if (checked.ok) validArgs = checked.value;
      else problem = checked.problem;
    }

    // 2. A denied call does not run; otherwise before_tool_use may abort, or replace the
    // arguments (validated again).
    const denial = problem === null ? ctx.denied?.get(call.callId) : undefined;
    if (
      tool !== undefined &&
      problem === null &&
      denial === undefined &&
      this.#hooks.has('before_tool_use')
    ) {
      const outcome = await this.#hooks.dispatch('before_tool_use', hookCtx, {
        callId: call.callId,
        toolName: call.toolName,
        arguments: args,
      });
      outcome.failures.forEach((failure) => ctx.reportError(failure));
      if (outcome.aborted !== null) abortReason = outcome.aborted;
      else if (outcome.data.arguments !== args) {
        args = outcome.data.arguments;
        let checked = validateArguments(tool, args, ToolResultTexts.invalidReplacedArguments);
        if (checked instanceof Promise) checked = await checked;
        if (checked.ok) validArgs = checked.value;
        else problem = checked.problem;
      }
    }

    // 3. Not started yet: a cancel skips it. A mutating call that will run is marked first.
    const stopped = () => ctx.cancelSignal.aborted || ctx.mayStart?.() === false;
    if (stopped()) return skippedResult(call, args);
    const runs = problem === null && denial === undefined && abortReason === null;
    if (runs && tool?.mutating === true && ctx.beforeMutatingCall) {
      await ctx.beforeMutatingCall(call.callId);
      if (stopped()) return skippedResult(call, args);
    }

    // 4–5. Start and execute.
    ctx.emit({ type: 'tool_call_start', callId: call.callId, toolName: call.toolName, arguments: args });
    const startedAt = this.#clock.now();
    let output: ToolOutput;
    if (problem !== null) output = { content: problem, isError: true };
    else if (denial !== undefined) output = { content: denial, isError: true };
    else if (abortReason !== null)
      output = { content: ToolResultTexts.abortedByHook(abortReason), isError: true };
    else {
      output = await executeWithTimeout(
        tool!,
        { callId: call.callId, arguments: validArgs, sessionId: ctx.sessionId, turnId: ctx.turnId },
        this.#timeoutMs,
        this.#clock,
      );
    }
    const durationMs = Math.max(0, this.#clock.now() - startedAt);
    output = truncateOutput(output);

    // 6. after_tool_use sees the truncated output of a call that ran, and may replace it.
    if (runs && this.#hooks.has('after_tool_use')) {
      const outcome = await this.#hooks.dispatch('after_tool_use', hookCtx, {
        callId: call.callId,
        toolName: call.toolName,
        arguments: args,
        output,
        durationMs,
      });
      outcome.failures.forEach((failure) => ctx.reportError(failure));
      if (outcome.data.output !== output) output = truncateOutput(outcome.data.output);
    }

    // 7. End.
    const isError = output.isError === true;
    ctx.emit({
      type: 'tool_call_end',
      callId: call.callId,
      toolName: call.toolName,
      output,
      durationMs,
      success: !isError,
    });
    return {
      callId: call.callId,
      toolName: call.toolName,
      arguments: args,
      output,
      isError,
      skipped: false,
      executed: runs,
      durationMs,
    };
  }
}

function identify(call: ToolCallRequest): { callId: string; toolName: string } {
  return { callId: call.callId, toolName: call.toolName };
}

function skippedResult(call: ToolCallRequest, args: unknown): ToolCallResult {
  return {
    ...identify(call),
    arguments: args,
    output: { content: TOOL_CALL_SKIPPED_TEXT, isError: true },
    isError: true,
    skipped: true,
    executed: false,
    durationMs: 0,
  };
}

/**
 * Validates with the tool's schema: synchronously first (no promise for the common schema), and
 * asynchronously only for a schema zod cannot parse synchronously (an async refinement or
 * transform). Checks that ran before zod met the async part run again in the async parse.
 */
function validateArguments(
  tool: ToolHandler,
  args: unknown,
  describe: (name: string, issues: readonly $ZodIssue[]) => string,
): ArgumentsCheck | Promise<ArgumentsCheck> {
  const checked = (result: ParseResult): ArgumentsCheck =>
    result.success
      ? { ok: true, value: result.data }
      : { ok: false, problem: describe(tool.name, result.error.issues) };
  const failed = (error: unknown): ArgumentsCheck => ({
    ok: false,
    problem: ToolResultTexts.validationFailed(tool.name, error),
  });
  try {
    return checked(z.safeParse(tool.parameters, args));
  } catch (error) {
    if (!(error instanceof $ZodAsyncError)) return failed(error);
  }
  return z.safeParseAsync(tool.parameters, args).then(checked, failed);
}

function truncateOutput(output: ToolOutput): ToolOutput {
  const content = truncateToolOutput(output.content);
  return content === output.content ? output : { ...output, content };
}

function jsonSchemaOf(tool: ToolHandler, index: number): ToolSpec['parameters'] {
  try {
    return toolParametersJsonSchema(tool);
  } catch (error) {
    throw Errors.invalidInput(
      `invalid tools[${index}].parameters: tool '${tool.name}' has a schema JSON Schema cannot express (${describeError(error)})`,
      error,
    );
  }
}
