/**
 * `AgentConfig.clock` end to end: with a manual clock, every time the runtime reads — event and
 * stored timestamps, hook payload timestamps, durations, the retry wait — is the clock's, and
 * nothing waits on the wall clock.
 */
import * as z from 'zod/mini';
import { describe, expect, it } from 'vitest';
import {
  AgentBuilder,
  AgentError,
  defineTool,
  InMemorySessionStorage,
  type Plugin,
} from '../../src/index.js';
import { reply, ScriptedModelProvider, type ScriptStep } from '../../src/testing/index.js';
import { isoAt, ManualClock, settle } from '../runtime/manual-clock.js';
import { MODEL } from '../support/agent.js';
import { eventsOf } from '../support/events.js';

/** Records each hook's payload timestamp and data, in firing order. */
function hookRecorder() {
  const seen: { event: string; timestamp: string; data: unknown }[] = [];
  const plugin: Plugin = {
    id: 'recorder',
    displayName: 'Recorder',
    description: 'records hooks',
    apply(ctx) {
      for (const event of ['turn_start', 'post_request', 'after_tool_use', 'on_retry', 'turn_end'] as const) {
        ctx.tap(event, ({ timestamp, data }) => void seen.push({ event, timestamp, data }));
      }
    },
  };
  return { seen, plugin };
}

async function build(clock: ManualClock, script: ScriptStep[], config: object = {}) {
  const provider = new ScriptedModelProvider({ script });
  const storage = new InMemorySessionStorage();
  const hooks = hookRecorder();
  const work = defineTool({
    name: 'work',
    description: 'takes 1.5 s of the clock’s time',
    parameters: z.object({}),
    execute: async () => {
      clock.advance(1_500);
      return 'done';
    },
  });
  const agent = await new AgentBuilder({ defaultModel: MODEL, clock, ...config })
    .registerModelProvider(provider)
    .registerSessionStorage(storage)
    .registerTool(work)
    .registerPlugin(hooks.plugin)
    .build();
  return { agent, provider, storage, hooks };
}

describe('a manual clock as AgentConfig.clock', () => {
  it('dates events, stored events and hook payloads, and times requests and tools', async () => {
    const clock = new ManualClock();
    const { agent, storage, hooks } = await build(clock, [
      // The model takes 200 ms of the clock's time to ask for the tool.
      () => (clock.advance(200), reply.toolCalls([{ name: 'work', arguments: {}, callId: 'c1' }])),
      reply.text('finished'),
    ]);
    const session = await agent.newSession();
    const turn = await session.sendMessage('go');
    const events = await eventsOf(turn);
    expect((await turn.result).status).toBe('completed');

    expect(events.map((e) => [e.payload.type, e.timestamp])).toEqual([
      ['tool_call_start', isoAt(200)],
      ['tool_call_end', isoAt(1_700)],
      ['text_delta', isoAt(1_700)],
      ['turn_complete', isoAt(1_700)],
    ]);
    expect(events[1]!.payload).toMatchObject({ type: 'tool_call_end', durationMs: 1_500 });

    expect(hooks.seen.map(({ event, timestamp }) => [event, timestamp])).toEqual([
      ['turn_start', isoAt(0)],
      ['post_request', isoAt(200)],
      ['after_tool_use', isoAt(1_700)],
      ['post_request', isoAt(1_700)],
      ['turn_end', isoAt(1_700)],
    ]);
    const data = (event: string) => hooks.seen.filter((h) => h.event === event).map((h) => h.data);
    expect(data('post_request')).toMatchObject([{ durationMs: 200 }, { durationMs: 0 }]);
    expect(data('after_tool_use')).toMatchObject([{ durationMs: 1_500 }]);

    await session.close();
    const stored = (await storage.loadSession(session.id))!;
    expect(stored.map((e) => [e.payload.type, e.timestamp])).toEqual([
      ['metadata', isoAt(0)],
      ['metadata', isoAt(0)],
      ['user_message', isoAt(0)],
      ['assistant_message', isoAt(200)],
      ['tool_call', isoAt(200)],
      ['tool_result', isoAt(1_700)],
      ['assistant_message', isoAt(1_700)],
      ['metadata', isoAt(1_700)],
    ]);
    await agent.shutdown();
  });

  it('waits out a retry on the clock: the next attempt goes out only when the delay has passed', async () => {
    const clock = new ManualClock();
    const overloaded = new AgentError('PROVIDER_ERROR', 'overloaded', {
      retryable: true,
      retryAfterMs: 5_000,
    });
    const { agent, provider, hooks } = await build(
      clock,
      [reply.error(overloaded), reply.text('second try')],
      {
        retry: { maxRetries: 1, initialDelayMs: 1, maxDelayMs: 60_000 },
      },
    );
    const session = await agent.newSession();
    const turn = await session.sendMessage('go');
    let settled = false;
    void turn.result.then(() => (settled = true));

    // The first timer is the attempt's idle watchdog; once the attempt has failed (promise
    // callbacks only), the retry wait is the one timer left.
    await clock.timerSet();
    await settle();
    expect(clock.pending).toEqual([5_000]);
    expect(hooks.seen.filter((h) => h.event === 'on_retry').map((h) => h.data)).toMatchObject([
      { attempt: 1, delayMs: 5_000 },
    ]);
    clock.advance(4_999);
    await settle();
    expect(provider.calls).toBe(1);
    expect(settled).toBe(false);

    clock.advance(1);
    expect((await turn.result).status).toBe('completed');
    expect(provider.calls).toBe(2);
    const events = await eventsOf(turn);
    expect(events.map((e) => [e.payload.type, e.timestamp])).toEqual([
      ['retry_scheduled', isoAt(0)],
      ['text_delta', isoAt(5_000)],
      ['turn_complete', isoAt(5_000)],
    ]);
    await agent.shutdown();
  });
});

describe('AgentConfig.clock validation', () => {
  it.each<[string, unknown]>([
    ['a string', 'system'],
    ['an object without timers', { now: () => 0 }],
    ['an object missing clearTimeout', { now: () => 0, setTimeout: () => 0 }],
    ['a function', () => 0],
  ])('rejects %s at build() with INVALID_INPUT naming config.clock', async (_, clock) => {
    const builder = new AgentBuilder({ defaultModel: MODEL, clock: clock as never }).registerModelProvider(
      new ScriptedModelProvider(),
    );
    const failure = await builder.build().catch((error: unknown) => error);
    expect(failure).toMatchObject({
      code: 'INVALID_INPUT',
      message: expect.stringContaining('config.clock'),
    });
  });
});
