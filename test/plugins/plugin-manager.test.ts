import { describe, it, expect } from 'vitest';
import { HookRegistry } from '../../src/hooks/hook-registry.js';
import { PluginManager } from '../../src/plugins/plugin-manager.js';
import type { Plugin, PluginContext } from '../../src/ports/plugin.js';
import { HookResult } from '../../src/types.js';
import { expectAgentError } from '../support/errors.js';

const ctx = { sessionId: 's', turnId: 't' };

/** A plugin that logs its lifecycle into `log` and taps `turn_start` to add its config. */
function loggingPlugin(id: string, log: string[], overrides: Partial<Plugin> = {}): Plugin {
  return {
    id,
    displayName: `Plugin ${id}`,
    description: `does ${id}`,
    initialize: (config) => void log.push(`initialize:${id}:${JSON.stringify(config)}`),
    apply: (pluginCtx) => {
      log.push(`apply:${id}`);
      pluginCtx.tap('turn_start', ({ data, pluginConfig }) =>
        HookResult.continueWith([...data, `${id}=${JSON.stringify(pluginConfig)}`]),
      );
    },
    shutdown: () => void log.push(`shutdown:${id}`),
    ...overrides,
  };
}

describe('PluginManager.initialize', () => {
  it('initializes each plugin in order, then applies each in order, with its config injected into its hooks', async () => {
    const log: string[] = [];
    const hooks = new HookRegistry({ timeoutMs: 1_000 });
    const manager = new PluginManager([
      { plugin: loggingPlugin('a', log), config: { x: 1 } },
      { plugin: loggingPlugin('b', log), config: 'bee' },
    ]);
    await manager.initialize(hooks);
    expect(log).toEqual(['initialize:a:{"x":1}', 'initialize:b:"bee"', 'apply:a', 'apply:b']);
    const outcome = await hooks.dispatch('turn_start', ctx, []);
    expect(outcome.data).toEqual(['a={"x":1}', 'b="bee"']);
  });

  it('gives apply a context carrying the plugin id and config', async () => {
    let seen: PluginContext | undefined;
    const manager = new PluginManager([
      { plugin: { id: 'p', displayName: 'P', description: '', apply: (c) => void (seen = c) }, config: 42 },
    ]);
    await manager.initialize(new HookRegistry({ timeoutMs: 1_000 }));
    expect(seen).toMatchObject({ pluginId: 'p', pluginConfig: 42 });
  });

  it('on an initialize failure: shuts down the initialized ones in reverse, rejects PLUGIN_INIT_FAILED naming the plugin', async () => {
    const log: string[] = [];
    const manager = new PluginManager([
      { plugin: loggingPlugin('a', log), config: null },
      { plugin: loggingPlugin('b', log), config: null },
      {
        plugin: loggingPlugin('c', log, {
          initialize: async () => {
            throw new Error('no API key');
          },
        }),
        config: null,
      },
      { plugin: loggingPlugin('d', log), config: null },
    ]);
    const hooks = new HookRegistry({ timeoutMs: 1_000 });
    const error = await expectAgentError(manager.initialize(hooks));
    expect(error).toMatchObject({
      code: 'PLUGIN_INIT_FAILED',
      message: "plugin 'c': no API key",
    });
    expect(log).toEqual(['initialize:a:null', 'initialize:b:null', 'shutdown:b', 'shutdown:a']);
    expect(hooks.has('turn_start')).toBe(false);
    expect(await manager.shutdown()).toEqual([]); // nothing left to shut down
    expect(log).toHaveLength(4);
  });

  it('on an apply failure: leaves no hook registered, even those tapped by plugins applied before', async () => {
    const log: string[] = [];
    const manager = new PluginManager([
      { plugin: loggingPlugin('a', log), config: null },
      {
        plugin: loggingPlugin('b', log, {
          apply: (c) => {
            c.tap('turn_end', () => undefined);
            throw new Error('bad apply');
          },
        }),
        config: null,
      },
    ]);
    const hooks = new HookRegistry({ timeoutMs: 1_000 });
    await expect(manager.initialize(hooks)).rejects.toMatchObject({
      code: 'PLUGIN_INIT_FAILED',
      message: "plugin 'b': bad apply",
    });
    expect(hooks.has('turn_start')).toBe(false);
    expect(hooks.has('turn_end')).toBe(false);
    expect(log).toEqual(['initialize:a:null', 'initialize:b:null', 'apply:a', 'shutdown:b', 'shutdown:a']);
  });

  it('fails a plugin that taps an unknown event', async () => {
    const manager = new PluginManager([
      {
        plugin: {
          id: 'typo',
          displayName: '',
          description: '',
          apply: (c) => c.tap('turnstart' as 'turn_start', () => {}),
        },
        config: null,
      },
    ]);
    await expect(manager.initialize(new HookRegistry({ timeoutMs: 1_000 }))).rejects.toMatchObject({
      code: 'PLUGIN_INIT_FAILED',
    });
  });

  it('refuses taps after apply has returned', async () => {
    let saved: PluginContext | undefined;
    const manager = new PluginManager([
      {
        plugin: { id: 'late', displayName: '', description: '', apply: (c) => void (saved = c) },
        config: null,
      },
    ]);
    const hooks = new HookRegistry({ timeoutMs: 1_000 });
    await manager.initialize(hooks);
    expect(() => saved!.tap('turn_end', () => {})).toThrow(
      expect.objectContaining({ code: 'INVALID_INPUT' }),
    );
    expect(hooks.has('turn_end')).toBe(false);
  });

  it('validates every plugin object before initializing any (INVALID_INPUT)', async () => {
    const log: string[] = [];
    const invalid = [
      { id: '', displayName: 'x', description: 'x', apply: () => {} },
      { id: 'x', displayName: 'x', description: 'x', apply: 'not a function' },
      { id: 'x', displayName: 'x', description: 'x', apply: () => {}, shutdown: 5 },
      { displayName: 'x', description: 'x', apply: () => {} },
    ];
    for (const plugin of invalid) {
      const manager = new PluginManager([
        { plugin: loggingPlugin('fine', log), config: null },
        { plugin: plugin as unknown as Plugin, config: null },
      ]);
      await expectAgentError(
        manager.initialize(new HookRegistry({ timeoutMs: 1_000 })),
        'INVALID_INPUT',
        'plugins[1]',
      );
    }
    expect(log).toEqual([]);
  });

  it('rejects two plugins with one id (NAME_CONFLICT)', async () => {
    const log: string[] = [];
    const manager = new PluginManager([
      { plugin: loggingPlugin('same', log), config: null },
      { plugin: loggingPlugin('same', log), config: null },
    ]);
    await expect(manager.initialize(new HookRegistry({ timeoutMs: 1_000 }))).rejects.toMatchObject({
      code: 'NAME_CONFLICT',
    });
    expect(log).toEqual([]);
  });
});

describe('PluginManager.shutdown', () => {
  it('shuts down in reverse registration order; a throwing one does not stop the others and is returned', async () => {
    const log: string[] = [];
    const manager = new PluginManager([
      { plugin: loggingPlugin('a', log), config: null },
      {
        plugin: loggingPlugin('b', log, {
          shutdown: async () => {
            log.push('shutdown:b');
            throw new Error('socket already closed');
          },
        }),
        config: null,
      },
      { plugin: loggingPlugin('c', log, { shutdown: undefined }), config: null },
      { plugin: loggingPlugin('d', log), config: null },
    ]);
    await manager.initialize(new HookRegistry({ timeoutMs: 1_000 }));
    log.length = 0;
    const failures = await manager.shutdown();
    expect(log).toEqual(['shutdown:d', 'shutdown:b', 'shutdown:a']);
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatchObject({ source: 'plugin' });
    expect(failures[0]!.message).toContain("plugin 'b' shutdown: socket already closed");
    expect(await manager.shutdown()).toEqual([]);
    expect(log).toHaveLength(3);
  });
});

describe('PluginManager.descriptors', () => {
  it('lists id, display name and description in registration order', () => {
    const log: string[] = [];
    const manager = new PluginManager([
      { plugin: loggingPlugin('a', log), config: null },
      { plugin: loggingPlugin('b', log), config: null },
    ]);
    expect(manager.descriptors()).toEqual([
      { id: 'a', displayName: 'Plugin a', description: 'does a' },
      { id: 'b', displayName: 'Plugin b', description: 'does b' },
    ]);
  });
});
