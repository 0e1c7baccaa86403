/**
 * `HookRegistry`: the plugins' hook handlers per event, and their dispatch (what each event's
 * data holds and what `continue_with` may change is in `continue-with-schemas.ts`). Handlers run one after another in registration order; `continue_with` hands
 * its data to the next handler; `abort` stops the chain. What an abort or new data *means* is the
 * caller's business — dispatch only reports them.
 * @module
 */
import * as z from 'zod/mini';
import type { $ZodType } from 'zod/v4/core';
import { describeError, formatIssues } from '../errors.js';
import * as Errors from '../error-constructors.js';
import type { AgentError } from '../errors.js';
import { isoNow, systemClock, type Clock } from '../clock.js';
import { HookEventSchema, HookResultSchema } from '../types.js';
import type { HookEvent } from '../types.js';
import type { HookDataMap, HookHandler } from '../ports/plugin.js';
import { CONTINUE_WITH_SCHEMAS } from './continue-with-schemas.js';
import { isThenable, MAX_TIMER_MS, TIMED_OUT, withTimeout } from '../timeout.js';

/** Where a dispatch happens: copied into every payload. */
export interface HookContext {
  sessionId: string;
  /** `null` outside a turn (e.g. `session_start`, `session_end`). */
  turnId: string | null;
}

/** What a dispatch ends with. */
export interface HookDispatchOutcome<E extends HookEvent> {
  /** The data after the `continue_with` chain (the input data when nothing replaced it). */
  data: HookDataMap[E];
  /** The reason of the handler that aborted, or `null` when none did. */
  aborted: string | null;
  /**
   * One `HOOK_FAILED` error per handler that threw, timed out, or returned something that is not
   * a valid HookResult (naming plugin and event). Such a handler counted as `continue`; the caller
   * turns each into a non-fatal `error` event.
   */
  failures: AgentError[];
}

/** Options of {@link HookRegistry}. */
export interface HookRegistryOptions {
  /** A handler that has not settled after this many ms counts as failed (`AgentConfig.hookTimeoutMs`). */
  timeoutMs: number;
  /** Payload timestamps and time limits. Default: the system clock. */
  clock?: Clock;
}

interface HookEntry {
  pluginId: string;
  pluginConfig: unknown;
  // Stored without its event type: `tap` ties each handler to its event, dispatch passes the
  // matching payload.
  handler: (payload: never) => unknown;
}

const TapArgumentsSchema = z.object({
  event: HookEventSchema,
  pluginId: z.string().check(z.minLength(1)),
  handler: z.custom<(...args: never[]) => unknown>((v) => typeof v === 'function'),
});

/**
 * The hook handlers of an agent, by event.
 * @example
 * const hooks = new HookRegistry({ timeoutMs: 30_000 });
 * hooks.tap('turn_start', 'clock', null, ({ data }) => HookResult.continueWith([...data, 'It is noon.']));
 * const { data } = await hooks.dispatch('turn_start', { sessionId: 's', turnId: 't' }, []);
 * // data: ['It is noon.']
 */
export class HookRegistry {
  readonly #timeoutMs: number;
  readonly #clock: Clock;
  readonly #entries = new Map<HookEvent, HookEntry[]>();

  constructor(options: HookRegistryOptions) {
    const timeoutMs = options?.timeoutMs;
    if (typeof timeoutMs !== 'number' || !(timeoutMs > 0)) {
      throw Errors.invalidInput(`hook timeoutMs must be a positive number, got ${String(timeoutMs)}`);
    }
    this.#timeoutMs = Math.min(timeoutMs, MAX_TIMER_MS);
    this.#clock = options.clock ?? systemClock;
  }

  /**
   * Registers `handler` for `event` on behalf of plugin `pluginId`; every payload it receives
   * carries `pluginConfig`. Plugins reach this through `PluginContext.tap`.
   * @throws AgentError `INVALID_INPUT` for an unknown event, an empty plugin id or a non-function.
   */
  tap<E extends HookEvent>(event: E, pluginId: string, pluginConfig: unknown, handler: HookHandler<E>): void {
    assertValidTap(event, pluginId, handler);
    const entry: HookEntry = { pluginId, pluginConfig, handler };
    const list = this.#entries.get(event);
    if (list) list.push(entry);
    else this.#entries.set(event, [entry]);
  }

  /** Whether any handler is registered for `event`. */
  has(event: HookEvent): boolean {
    return this.#entries.has(event);
  }

  /**
   * Runs the handlers of `event` in registration order. Never rejects: a failing handler is
   * reported in `failures` and counts as `continue`. With no handlers it resolves at once with
   * `data` unchanged.
   */
  dispatch<E extends HookEvent>(
    event: E,
    ctx: HookContext,
    data: HookDataMap[E],
  ): Promise<HookDispatchOutcome<E>> {
    const entries = this.#entries.get(event);
    // Hot path (every tool call, every request): no handlers, no work.
    if (entries === undefined) return Promise.resolve({ data, aborted: null, failures: [] });
    return this.#run(event, entries, ctx, data);
  }

  async #run<E extends HookEvent>(
    event: E,
    entries: readonly HookEntry[],
    ctx: HookContext,
    initial: HookDataMap[E],
  ): Promise<HookDispatchOutcome<E>> {
    const failures: AgentError[] = [];
    const timestamp = isoNow(this.#clock);
    const replacementSchema = CONTINUE_WITH_SCHEMAS[event];
    let data = initial;
    // A handler that taps during dispatch joins the next dispatch, not this one.
    const count = entries.length;
    for (let i = 0; i < count; i++) {
      const entry = entries[i]!;
      const payload = {
        event,
        sessionId: ctx.sessionId,
        turnId: ctx.turnId,
        pluginConfig: entry.pluginConfig,
        data,
        timestamp,
      };
      let returned: unknown;
      try {
        returned = await this.#settle((entry.handler as (p: typeof payload) => unknown)(payload));
      } catch (error) {
        failures.push(Errors.hookFailed(entry.pluginId, event, error));
        continue;
      }
      if (returned === TIMED_OUT) {
        failures.push(Errors.hookFailed(entry.pluginId, event, `did not settle within ${this.#timeoutMs}ms`));
        continue;
      }
      if (returned === undefined) continue;
      let step: { aborted: string } | { data: HookDataMap[E] } | { failure: string };
      try {
        step = interpret(returned, replacementSchema, data);
      } catch (error) {
        // A result whose getters throw is a handler failure like any other, never a crash.
        step = { failure: `returned a result that could not be read (${describeError(error)})` };
      }
      if ('aborted' in step) return { data, aborted: step.aborted, failures };
      if ('failure' in step) failures.push(Errors.hookFailed(entry.pluginId, event, step.failure));
      else data = step.data;
    }
    return { data, aborted: null, failures };
  }

  /** Awaits a handler's return value, bounded by the hook timeout (no timer for sync values). */
  #settle(value: unknown): Promise<unknown> | unknown {
    return isThenable(value) ? withTimeout(value, this.#timeoutMs, undefined, this.#clock) : value;
  }
}

/**
 * What one handler's result means for the chain: an abort, the data for the next handler, or a
 * failure (counted as `continue`). Replacement data is validated on the fields the runtime uses,
 * and keeps every key the handler added, so the next handler sees the data as it was modified.
 */
function interpret<D>(
  returned: unknown,
  replacementSchema: $ZodType | undefined,
  data: D,
): { aborted: string } | { data: D } | { failure: string } {
  const result = z.safeParse(HookResultSchema, returned);
  if (!result.success) {
    return {
      failure: `returned something that is not a HookResult (${formatIssues(result.error.issues, 'result')})`,
    };
  }
  const outcome = result.data;
  if (outcome.type === 'abort') return { aborted: outcome.reason };
  // `continue`, or `continue_with` on an event whose data the runtime does not take back.
  if (outcome.type !== 'continue_with' || replacementSchema === undefined) return { data };
  const replacement = z.safeParse(replacementSchema, outcome.data);
  if (!replacement.success) {
    return {
      failure: `continue_with data has the wrong shape (${formatIssues(replacement.error.issues, 'data')})`,
    };
  }
  const validated = replacement.data;
  const isRecord = (v: unknown): v is Record<string, unknown> =>
    typeof v === 'object' && v !== null && !Array.isArray(v);
  // The validated fields win (they are what the runtime reads); the handler's own keys ride along.
  const merged =
    isRecord(validated) && isRecord(outcome.data) ? { ...outcome.data, ...validated } : validated;
  return { data: merged as D };
}

/**
 * Checks the arguments of a `tap`: a known event, a non-empty plugin id, a function.
 * @throws AgentError `INVALID_INPUT` naming the failing argument.
 */
export function assertValidTap(event: unknown, pluginId: unknown, handler: unknown): void {
  const checked = z.safeParse(TapArgumentsSchema, { event, pluginId, handler });
  if (!checked.success) {
    throw Errors.invalidInputFromIssues('hook tap', checked.error.issues, checked.error);
  }
}
