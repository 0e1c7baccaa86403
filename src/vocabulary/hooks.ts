/**
 * Hooks: the lifecycle events plugins tap, what a handler receives and what it returns.
 *
 * Each module-scope schema is built inside an arrow call marked `@__PURE__`, so that a bundler
 * drops the ones an app does not use.
 * @module
 */
import * as z from 'zod/mini';
import { isoTimestamp } from '../iso-timestamp.js';

/** Every hook event, in lifecycle order. */
export const HOOK_EVENTS = [
  'session_start',
  'session_end',
  'turn_start',
  'turn_end',
  'before_tool_use',
  'after_tool_use',
  'before_compact',
  'pre_request',
  'post_request',
  'on_retry',
  'on_error',
] as const;
/** Schema of {@link HookEvent}. */
export const HookEventSchema = /* @__PURE__ */ (() => z.enum(HOOK_EVENTS))();
/** A point of the lifecycle where plugins may observe or intervene. */
export type HookEvent = z.infer<typeof HookEventSchema>;

/** Schema of {@link HookPayload}. */
export const HookPayloadSchema = /* @__PURE__ */ (() =>
  z.strictObject({
    event: HookEventSchema,
    sessionId: z.string(),
    turnId: z.nullable(z.string()),
    /** The config the plugin was registered with. */
    pluginConfig: z.unknown(),
    /** Event-specific data: see the hook table in `docs/hooks-and-plugins.md`. */
    data: z.unknown(),
    timestamp: isoTimestamp(),
  }))();
/** What a hook handler receives. */
export type HookPayload = z.infer<typeof HookPayloadSchema>;

/** Schema of {@link HookResult}. */
export const HookResultSchema = /* @__PURE__ */ (() =>
  z.discriminatedUnion('type', [
    z.strictObject({ type: z.literal('continue') }),
    z.strictObject({ type: z.literal('continue_with'), data: z.unknown() }),
    z.strictObject({ type: z.literal('abort'), reason: z.string() }),
  ]))();
/** What a hook handler returns: go on, go on with new data, or stop. `undefined` means continue. */
export type HookResult = z.infer<typeof HookResultSchema>;

/**
 * Constructors for {@link HookResult}.
 * @example
 * ctx.tap('pre_request', ({ data }) => HookResult.abort('offline'));
 */
export const HookResult = /* @__PURE__ */ (() =>
  ({
    /** Go on unchanged. */
    continue: (): HookResult => ({ type: 'continue' }),
    /** Go on with `data` replacing the payload's data (the next handler sees it). */
    continueWith: (data: unknown): HookResult => ({ type: 'continue_with', data }),
    /** Stop the chain; what that means depends on the event (see the hook table). */
    abort: (reason: string): HookResult => ({ type: 'abort', reason }),
  }) as const)();
