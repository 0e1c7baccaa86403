/**
 * Plugins and hook handlers cannot hang or crash the agent: every wait on them is bounded and
 * accepts any thenable (a never-settling one, a Promise from another realm), and a handler's
 * result is read inside the failure boundary, so a throwing getter is a non-fatal `HOOK_FAILED`
 * that counts as `continue`, on every event.
 */
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import {
  AgentBuilder,
  AgentError,
  defineTool,
  HookResult,
  InMemoryMemoryStorage,
  InMemorySessionStorage,
  type AgentEvent,
  type HookEvent,
  type Plugin,
} from '../../src/index.js';
import { ScriptedModelProvider, SCRIPTED_MODEL, reply } from '../../src/testing/index.js';

const plugin = (id: string, parts: Partial<Plugin> = {}): Plugin => ({
  id,
  displayName: id,
  description: `the ${id} plugin`,
  apply: () => {},
  ...parts,
});

const never = { then: () => {} }; // a thenable that never calls back
const foreignNever = () => runInNewContext('new Promise(() => {})') as Promise<void>;

function builder(plugins: Plugin[], script = [reply.text('ok')]) {
  let b = new AgentBuilder({ defaultModel: SCRIPTED_MODEL.id, hookTimeoutMs: 30 }).registerModelProvider(
    new ScriptedModelProvider({ script }),
  );
  for (const p of plugins) b = b.registerPlugin(p);
  return b;
}

describe('plugin lifecycle waits are bounded', () => {
  it.each([
    ['a never-settling thenable', () => never],
    ['a Promise from another realm', foreignNever],
  ])(
    'agent.shutdown() finishes when a shutdown() returns %s, and still shuts down the others',
    async (_, stuck) => {
      const shutDown: string[] = [];
      const agent = await builder([
        plugin('first', { shutdown: () => void shutDown.push('first') }),
        plugin('stuck', { shutdown: stuck as () => Promise<void> }),
        plugin('last', { shutdown: () => void shutDown.push('last') }),
      ]).build();
      await agent.shutdown();
      // Reverse order; the stuck one is reported, the one before it still ran.
      expect(shutDown).toEqual(['last', 'first']);
      expect(agent.unreportedErrors.map((e) => e.message)).toEqual([
        expect.stringMatching(/plugin 'stuck' shutdown: did not finish within 30ms/),
      ]);
    },
  );

  it.each([
    ['a never-settling thenable', () => never],
    ['a Promise from another realm', foreignNever],
  ])('build() rejects PLUGIN_INIT_FAILED when initialize() returns %s', async (_, stuck) => {
    const shutDown: string[] = [];
    const error = await builder([
      plugin('ok', { shutdown: () => void shutDown.push('ok') }),
      plugin('stuck', { initialize: stuck as () => Promise<void> }),
    ])
      .build()
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(AgentError.isInstance(error) && error.code).toBe('PLUGIN_INIT_FAILED');
    expect((error as Error).message).toMatch(/plugin 'stuck'.*did not finish within 30ms/);
    expect(shutDown).toEqual(['ok']); // the plugin initialized before it is rolled back
  });
});

/** A hook result whose `type` getter throws. */
const explodingResult = () =>
  Object.defineProperty({}, 'type', {
    enumerable: true,
    get() {
      throw new Error('getter exploded');
    },
  });

async function runWithExplodingHook(event: HookEvent) {
  const tool = defineTool({
    name: 'echo',
    description: 'Echo',
    parameters: z.object({ text: z.string() }),
    execute: async ({ arguments: { text } }) => text,
  });
  const provider = new ScriptedModelProvider({
    script: [
      reply.toolCalls([{ name: 'echo', arguments: { text: 'hi' } }]),
      event === 'on_error' ? reply.error(new AgentError('PROVIDER_ERROR', 'down')) : reply.text('done'),
      reply.text('{"memories":[]}'),
    ],
  });
  const agent = await new AgentBuilder({
    defaultModel: SCRIPTED_MODEL.id,
    hookTimeoutMs: 1_000,
    memory: { namespace: 'user' },
  })
    .registerModelProvider(provider)
    .registerTool(tool)
    .registerSessionStorage(new InMemorySessionStorage())
    .registerMemoryStorage(new InMemoryMemoryStorage())
    .registerPlugin(plugin('bad', { apply: (ctx) => ctx.tap(event, () => explodingResult() as HookResult) }))
    .build();
  const session = await agent.newSession();
  const events: AgentEvent[] = [];
  session.events.subscribe((e) => events.push(e));
  const turn = await session.sendMessage('hello');
  const result = await turn.result;
  await session.close();
  await agent.shutdown();
  return { result, events, provider };
}

describe('a hook result whose getter throws', () => {
  it.each([
    'turn_start',
    'pre_request',
    'post_request',
    'before_tool_use',
    'after_tool_use',
    'turn_end',
  ] as const)(
    'on %s is one non-fatal HOOK_FAILED, and the turn goes on as if it said continue',
    async (event) => {
      const { result, events } = await runWithExplodingHook(event);
      expect(result.status).toBe('completed');
      const failures = events.filter((e) => e.payload.type === 'error');
      expect(failures.length).toBeGreaterThan(0);
      for (const failure of failures) {
        expect(failure.payload).toMatchObject({
          type: 'error',
          fatal: false,
          error: { code: 'HOOK_FAILED', message: expect.stringContaining('getter exploded') },
        });
      }
      // Every started tool call ended.
      const starts = events.filter((e) => e.payload.type === 'tool_call_start').length;
      expect(events.filter((e) => e.payload.type === 'tool_call_end')).toHaveLength(starts);
      expect(events.filter((e) => e.payload.type === 'turn_complete')).toHaveLength(1);
    },
  );

  it('on on_error: the turn still fails with its own error and turn_end still fires', async () => {
    const { result, events } = await runWithExplodingHook('on_error');
    expect(result.status).toBe('failed');
    expect(result.error?.message).toContain('down');
    const hookFailures = events.filter(
      (e) => e.payload.type === 'error' && e.payload.error.code === 'HOOK_FAILED',
    );
    expect(hookFailures).toHaveLength(1);
  });

  it('on session_end: memory extraction still runs at close, with no STORAGE_ERROR', async () => {
    const { events, provider } = await runWithExplodingHook('session_end');
    expect(provider.requests.map((r) => r.purpose)).toContain('memory_extraction');
    const codes = events
      .filter((e) => e.payload.type === 'error')
      .map((e) => (e.payload as { error: { code: string } }).error.code);
    expect(codes).toEqual(['HOOK_FAILED']);
  });
});

describe('continue_with data', () => {
  it('keeps the keys a handler added, so the next handler sees them; the runtime uses its own fields', async () => {
    const seen: unknown[] = [];
    const agent = await new AgentBuilder({ defaultModel: SCRIPTED_MODEL.id })
      .registerModelProvider(new ScriptedModelProvider({ script: [reply.text('ok')] }))
      .registerPlugin(
        plugin('first', {
          apply: (ctx) =>
            ctx.tap('pre_request', ({ data }) =>
              HookResult.continueWith({
                ...data,
                request: { ...data.request, systemPrompt: 'changed' },
                traceId: 'abc',
              }),
            ),
        }),
      )
      .registerPlugin(
        plugin('second', { apply: (ctx) => ctx.tap('pre_request', ({ data }) => void seen.push(data)) }),
      )
      .build();
    const session = await agent.newSession();
    expect((await (await session.sendMessage('hi')).result).status).toBe('completed');
    expect(seen).toEqual([expect.objectContaining({ traceId: 'abc', attempt: 1 })]);
    expect((seen[0] as { request: { systemPrompt: string } }).request.systemPrompt).toBe('changed');
    await agent.shutdown();
  });
});
