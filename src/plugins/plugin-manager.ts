/**
 * `PluginManager`: the plugins' lifecycle. At build: validate every plugin,
 * `initialize(config)` each in registration order, then `apply(ctx)` each so it taps its hooks.
 * At shutdown: `shutdown()` each in reverse order.
 * @module
 */
import * as z from 'zod/mini';
import { AgentError, describeError } from '../errors.js';
import * as Errors from '../error-constructors.js';
import type { HookEvent } from '../types.js';
import type { HookHandler, Plugin, PluginContext, RuntimeWatcher } from '../ports/plugin.js';
import { assertValidTap } from '../hooks/hook-registry.js';
import type { HookRegistry } from '../hooks/hook-registry.js';
import { isThenable, TIMED_OUT, withTimeout } from '../timeout.js';
import { systemClock, type Clock } from '../clock.js';

/** A plugin with the config it was registered with (`registerPlugin(plugin, config)`). */
export interface PluginRegistration {
  plugin: Plugin;
  config: unknown;
}

/** A plugin as the system prompt's plugin section lists it. */
export interface PluginDescriptor {
  id: string;
  displayName: string;
  description: string;
}

const optionalFunction = () =>
  z.optional(z.custom<(...args: never[]) => unknown>((v) => typeof v === 'function', 'expected function'));

const PluginShapeSchema = z.object({
  id: z.string().check(z.minLength(1)),
  displayName: z.string(),
  description: z.string(),
  initialize: optionalFunction(),
  apply: z.custom<(ctx: PluginContext) => void>((v) => typeof v === 'function', 'expected function'),
  shutdown: optionalFunction(),
});

type Phase = 'new' | 'initializing' | 'ready' | 'failed' | 'shut_down';

interface StagedTap {
  event: HookEvent;
  pluginId: string;
  pluginConfig: unknown;
  handler: HookHandler;
}

/**
 * Runs the plugins' lifecycle.
 * @example
 * const plugins = new PluginManager([{ plugin: auditPlugin, config: { level: 'info' } }]);
 * await plugins.initialize(hooks);   // rejects PLUGIN_INIT_FAILED naming the plugin
 * // ...
 * const failures = await plugins.shutdown();
 */
export class PluginManager {
  readonly #registrations: readonly PluginRegistration[];
  /** Plugins whose `initialize` succeeded, in registration order: the ones `shutdown` owes. */
  #initialized: Plugin[] = [];
  #phase: Phase = 'new';
  /** What the plugins watch the sessions with (`ctx.watch`), once every plugin succeeded. */
  readonly watchers: RuntimeWatcher[] = [];

  readonly #timeoutMs: number;
  readonly #clock: Clock;

  /**
   * `timeoutMs` bounds each plugin's `initialize` and `shutdown` (the agent passes
   * `hookTimeoutMs`; default 30 s): one that never settles fails instead of hanging the agent.
   */
  constructor(
    registrations: readonly PluginRegistration[],
    options: { timeoutMs?: number; clock?: Clock } = {},
  ) {
    this.#registrations = [...registrations];
    this.#timeoutMs = options.timeoutMs ?? 30_000;
    this.#clock = options.clock ?? systemClock;
  }

  /**
   * Validates each plugin (`INVALID_INPUT`; a repeated id is `NAME_CONFLICT`), calls
   * `initialize(config)` on each in order, then `apply(ctx)` on each in order. The hooks they tap
   * reach `hooks` only once every plugin has succeeded. If an `initialize` or `apply` throws,
   * the plugins already initialized are shut down in reverse order (their failures are ignored)
   * and the promise rejects with `PLUGIN_INIT_FAILED` naming the plugin; `hooks` is untouched.
   */
  async initialize(hooks: HookRegistry): Promise<void> {
    if (this.#phase !== 'new') {
      throw Errors.invalidInput('PluginManager.initialize() may be called only once');
    }
    this.#phase = 'initializing';
    try {
      this.#validate();
    } catch (error) {
      this.#phase = 'failed';
      throw error;
    }

    const staged: StagedTap[] = [];
    const watchers: RuntimeWatcher[] = [];
    let current: Plugin | undefined;
    try {
      for (const { plugin, config } of this.#registrations) {
        current = plugin;
        if (plugin.initialize) await settleWithin(plugin.initialize(config), this.#timeoutMs, this.#clock);
        this.#initialized.push(plugin);
      }
      for (const { plugin, config } of this.#registrations) {
        current = plugin;
        const ctx = stagingContext(plugin.id, config, staged, watchers);
        plugin.apply(ctx);
        ctx.close();
      }
    } catch (error) {
      this.#phase = 'failed';
      await this.#shutdownInitialized();
      throw Errors.pluginInitFailed(current?.id ?? '(unknown)', error);
    }
    // Every plugin succeeded: only now do their handlers become visible.
    for (const tap of staged) hooks.tap(tap.event, tap.pluginId, tap.pluginConfig, tap.handler);
    this.watchers.push(...watchers);
    this.#phase = 'ready';
  }

  /**
   * Calls `shutdown()` of every initialized plugin in reverse registration order. One that throws
   * (or rejects, or does not finish within `timeoutMs` when given) does not stop the others; each
   * failure is returned as an `AgentError` naming the plugin. Calling it again does nothing.
   */
  async shutdown(timeoutMs: number = this.#timeoutMs, clock: Clock = this.#clock): Promise<AgentError[]> {
    if (this.#phase === 'shut_down') return [];
    this.#phase = 'shut_down';
    return this.#shutdownInitialized(timeoutMs, clock);
  }

  /** Each registered plugin's id, display name and description, in registration order. */
  descriptors(): PluginDescriptor[] {
    return this.#registrations.map(({ plugin }) => ({
      id: plugin.id,
      displayName: plugin.displayName,
      description: plugin.description,
    }));
  }

  #validate(): void {
    const seen = new Set<string>();
    this.#registrations.forEach((registration, index) => {
      const result = z.safeParse(PluginShapeSchema, registration?.plugin);
      if (!result.success) {
        throw Errors.invalidInputFromIssues(`plugins[${index}]`, result.error.issues, result.error);
      }
      const { id } = result.data;
      if (seen.has(id)) throw Errors.nameConflict('plugin', id);
      seen.add(id);
    });
  }

  async #shutdownInitialized(timeoutMs = this.#timeoutMs, clock = this.#clock): Promise<AgentError[]> {
    const failures: AgentError[] = [];
    const plugins = this.#initialized.reverse();
    this.#initialized = [];
    for (const plugin of plugins) {
      try {
        await settleWithin(plugin.shutdown?.(), timeoutMs, clock);
      } catch (error) {
        // No dedicated code exists for a failed shutdown; it is a plugin failure like a hook's.
        failures.push(
          new AgentError('HOOK_FAILED', `plugin '${plugin.id}' shutdown: ${describeError(error)}`, {
            source: 'plugin',
            cause: error,
          }),
        );
      }
    }
    return failures;
  }
}

/**
 * Awaits `value` — any thenable, from any realm — but at most `timeoutMs`: a plugin whose
 * `initialize()` or `shutdown()` never settles must not hang `build()` or `agent.shutdown()`.
 */
async function settleWithin(value: unknown, timeoutMs: number, clock: Clock): Promise<void> {
  if (!isThenable(value)) return;
  if ((await withTimeout(value, timeoutMs, undefined, clock)) === TIMED_OUT)
    throw new Error(`did not finish within ${timeoutMs}ms`);
}

/**
 * A `PluginContext` that records taps instead of registering them, so a failed build leaves no
 * handler behind. After `close()` (the end of `apply`) it refuses further taps.
 */
function stagingContext(
  pluginId: string,
  pluginConfig: unknown,
  staged: StagedTap[],
  watchers: RuntimeWatcher[],
): PluginContext & { close(): void } {
  let open = true;
  return {
    pluginId,
    pluginConfig,
    tap(event, handler) {
      if (!open) {
        throw Errors.invalidInput(`plugin '${pluginId}': tap() is only available during apply()`);
      }
      assertValidTap(event, pluginId, handler);
      staged.push({ event, pluginId, pluginConfig, handler: handler as unknown as HookHandler });
    },
    watch(watcher) {
      if (!open) throw Errors.invalidInput(`plugin '${pluginId}': watch() is only available during apply()`);
      watchers.push(watcher);
    },
    close() {
      open = false;
    },
  };
}
