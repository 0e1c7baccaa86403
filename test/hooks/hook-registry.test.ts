import { describe, it, expect } from 'vitest';
import { AgentError } from '../../src/errors.js';
import { HookRegistry } from '../../src/hooks/hook-registry.js';
import type { HookDataMap, HookHandler } from '../../src/ports/plugin.js';
import { HookResult } from '../../src/types.js';
import type { ChatRequest } from '../../src/types.js';

const ctx = { sessionId: 'session-1', turnId: 'turn-1' };
const registry = (timeoutMs = 1_000) => new HookRegistry({ timeoutMs });

describe('HookRegistry.dispatch', () => {
  it('runs handlers in registration order and chains continue_with data to the next one', async () => {
    const hooks = registry();
    const seen: string[][] = [];
    hooks.tap('turn_start', 'first', null, ({ data }) => {
      seen.push([...data]);
      return HookResult.continueWith([...data, 'one']);
    });
    hooks.tap('turn_start', 'second', null, async ({ data }) => {
      seen.push([...data]);
      return HookResult.continueWith([...data, 'two']);
    });
    hooks.tap('turn_start', 'third', null, ({ data }) => {
      seen.push([...data]);
    });
    const outcome = await hooks.dispatch('turn_start', ctx, []);
    expect(seen).toEqual([[], ['one'], ['one', 'two']]);
    expect(outcome).toEqual({ data: ['one', 'two'], aborted: null, failures: [] });
  });

  it('stops at abort, returns the reason and the data as it was before the aborting handler', async () => {
    const hooks = registry();
    let laterRan = false;
    hooks.tap('turn_start', 'adds', null, () => HookResult.continueWith(['kept']));
    hooks.tap('turn_start', 'blocks', null, () => HookResult.abort('quota exceeded'));
    hooks.tap('turn_start', 'later', null, () => {
      laterRan = true;
    });
    const outcome = await hooks.dispatch('turn_start', ctx, []);
    expect(outcome).toEqual({ data: ['kept'], aborted: 'quota exceeded', failures: [] });
    expect(laterRan).toBe(false);
  });

  it('gives each handler a payload with its own plugin config, the event, ids and a timestamp', async () => {
    const hooks = registry();
    const payloads: unknown[] = [];
    hooks.tap('session_end', 'a', { level: 1 }, (payload) => void payloads.push(payload));
    hooks.tap('session_end', 'b', 'config-b', (payload) => void payloads.push(payload));
    await hooks.dispatch('session_end', { sessionId: 's', turnId: null }, { reason: 'close', turnCount: 3 });
    expect(payloads).toEqual([
      expect.objectContaining({
        event: 'session_end',
        sessionId: 's',
        turnId: null,
        pluginConfig: { level: 1 },
      }),
      expect.objectContaining({ pluginConfig: 'config-b', data: { reason: 'close', turnCount: 3 } }),
    ]);
    const timestamp = (payloads[0] as { timestamp: string }).timestamp;
    expect(new Date(timestamp).toISOString()).toBe(timestamp);
  });

  it('reports a throwing handler (sync or async) as HOOK_FAILED naming plugin and event, and continues', async () => {
    const hooks = registry();
    hooks.tap('turn_start', 'sync-thrower', null, () => {
      throw new Error('boom');
    });
    hooks.tap('turn_start', 'async-thrower', null, async () => {
      throw new Error('later boom');
    });
    hooks.tap('turn_start', 'good', null, ({ data }) => HookResult.continueWith([...data, 'still here']));
    const outcome = await hooks.dispatch('turn_start', ctx, []);
    expect(outcome.data).toEqual(['still here']);
    expect(outcome.aborted).toBeNull();
    expect(outcome.failures.map((f) => [f.code, f.source, f.message])).toEqual([
      ['HOOK_FAILED', 'plugin', "plugin 'sync-thrower' turn_start hook: boom"],
      ['HOOK_FAILED', 'plugin', "plugin 'async-thrower' turn_start hook: later boom"],
    ]);
  });

  it('reports a return value that is not a HookResult and treats it as continue', async () => {
    const hooks = registry();
    hooks.tap('turn_start', 'confused', null, (() => ({
      type: 'stop',
    })) as unknown as HookHandler<'turn_start'>);
    hooks.tap('turn_start', 'abort-without-reason', null, (() => ({
      type: 'abort',
    })) as unknown as HookHandler<'turn_start'>);
    hooks.tap('turn_start', 'good', null, () => HookResult.continueWith(['ok']));
    const outcome = await hooks.dispatch('turn_start', ctx, []);
    expect(outcome.data).toEqual(['ok']);
    expect(outcome.aborted).toBeNull();
    expect(outcome.failures).toHaveLength(2);
    expect(outcome.failures[0]!.message).toContain(
      "plugin 'confused' turn_start hook: returned something that is not a HookResult",
    );
  });

  it('bounds a handler that never settles by the hook timeout, then goes on', async () => {
    const hooks = registry(25);
    hooks.tap('on_error', 'stuck', null, () => new Promise<void>(() => {}));
    let nextRan = false;
    hooks.tap('on_error', 'next', null, () => {
      nextRan = true;
    });
    const outcome = await hooks.dispatch('on_error', ctx, { error: new AgentError('PROVIDER_ERROR', 'x') });
    expect(nextRan).toBe(true);
    expect(outcome.failures).toHaveLength(1);
    expect(outcome.failures[0]!.message).toBe(
      "plugin 'stuck' on_error hook: did not settle within 25ms",
    );
  });

  it('rejects continue_with data of the wrong shape (reported) and keeps the previous data', async () => {
    const hooks = registry();
    hooks.tap('turn_start', 'wrong', null, () => HookResult.continueWith('not an array'));
    hooks.tap('turn_start', 'numbers', null, () => HookResult.continueWith([1, 2]));
    const outcome = await hooks.dispatch('turn_start', ctx, ['original']);
    expect(outcome.data).toEqual(['original']);
    expect(outcome.failures.map((f) => f.message)).toEqual([
      expect.stringContaining("plugin 'wrong' turn_start hook: continue_with data has the wrong shape"),
      expect.stringContaining(
        "plugin 'numbers' turn_start hook: continue_with data has the wrong shape (data.0: expected string",
      ),
    ]);
  });

  it('checks that tool and request replacements keep their shape', async () => {
    const hooks = registry();
    hooks.tap('before_tool_use', 'drops-name', null, () => HookResult.continueWith({ arguments: {} }));
    const tool = await hooks.dispatch('before_tool_use', ctx, {
      callId: 'c',
      toolName: 't',
      arguments: { a: 1 },
    });
    expect(tool.data).toEqual({ callId: 'c', toolName: 't', arguments: { a: 1 } });
    expect(tool.failures).toHaveLength(1);

    const request: ChatRequest = { model: 'm', systemPrompt: '', messages: [], tools: [], purpose: 'turn' };
    hooks.tap('pre_request', 'rewrites', null, ({ data }) =>
      HookResult.continueWith({ ...data, request: { ...data.request, model: 'cheaper' } }),
    );
    hooks.tap('pre_request', 'breaks', null, ({ data }) =>
      HookResult.continueWith({ ...data, request: { ...data.request, messages: 'none' } }),
    );
    const pre = await hooks.dispatch('pre_request', ctx, { request, attempt: 1 });
    expect(pre.data.request.model).toBe('cheaper');
    expect(pre.data.request.messages).toEqual([]);
    expect(pre.failures.map((f) => f.message)).toEqual([
      expect.stringContaining("plugin 'breaks' pre_request hook"),
    ]);
  });

  it('ignores continue_with on events whose table says "ignored" (data unchanged, nothing reported)', async () => {
    const hooks = registry();
    hooks.tap('post_request', 'p', null, () => HookResult.continueWith({ anything: true }));
    const data: HookDataMap['post_request'] = {
      usage: null,
      finishReason: 'stop',
      durationMs: 3,
      attempt: 1,
    };
    const outcome = await hooks.dispatch('post_request', ctx, data);
    expect(outcome).toEqual({ data, aborted: null, failures: [] });
  });

  it('resolves at once with the same data and no failures when nothing is tapped', async () => {
    const hooks = registry();
    const data = ['a'];
    expect(hooks.has('turn_start')).toBe(false);
    const outcome = await hooks.dispatch('turn_start', ctx, data);
    expect(outcome.data).toBe(data);
    expect(outcome).toEqual({ data, aborted: null, failures: [] });
    hooks.tap('turn_start', 'p', null, () => undefined);
    expect(hooks.has('turn_start')).toBe(true);
    expect(hooks.has('turn_end')).toBe(false);
  });

  it('rejects a tap with an unknown event, an empty plugin id or a non-function (INVALID_INPUT)', () => {
    const hooks = registry();
    const tap = hooks.tap.bind(hooks) as (e: unknown, id: unknown, c: unknown, h: unknown) => void;
    expect(() => tap('before_everything', 'p', null, () => {})).toThrow(
      expect.objectContaining({ code: 'INVALID_INPUT' }),
    );
    expect(() => tap('turn_start', '', null, () => {})).toThrow(
      expect.objectContaining({ code: 'INVALID_INPUT' }),
    );
    expect(() => tap('turn_start', 'p', null, 'handler')).toThrow(
      expect.objectContaining({ code: 'INVALID_INPUT' }),
    );
  });

  it('rejects a non-positive timeout (INVALID_INPUT)', () => {
    expect(() => new HookRegistry({ timeoutMs: 0 })).toThrow(
      expect.objectContaining({ code: 'INVALID_INPUT' }),
    );
  });
});
