/**
 * Errors are labelled where the machines meet the steps: a runtime bug is `INTERNAL_ERROR` from
 * the agent, never blamed on a component, and a turn always ends. Driven through the public
 * API; the bug is planted by making one method of a real runtime service throw (`vi.spyOn` on
 * its prototype), since no public seam lets a test break the runtime's own code.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { EventHub } from '../../src/events/event-hub.js';
import { ResponseDraft } from '../../src/runtime/turn-run.js';
import { SkillManager } from '../../src/skills/skill-manager.js';
import { reply } from '../../src/testing/index.js';
import type { AgentEvent, AgentEventPayload } from '../../src/types.js';
import { createTestAgent, testPlugin } from '../support/agent.js';
import { eventsOf } from '../support/events.js';

afterEach(() => void vi.restoreAllMocks());

const fatal = (events: AgentEvent[]) =>
  events.filter((e) => e.payload.type === 'error' && e.payload.fatal).map((e) => e.payload);

describe('errors escaping a step', () => {
  it('a step that crashes fails the turn with a fatal INTERNAL_ERROR from the agent', async () => {
    const { agent, provider } = await createTestAgent({ script: [reply.text('after the fix')] });
    const detect = vi.spyOn(SkillManager.prototype, 'detect').mockImplementation(() => {
      throw new TypeError('detect is broken');
    });
    const session = await agent.newSession();
    const turn = await session.sendMessage('hello');
    const [result, events] = await Promise.all([turn.result, eventsOf(turn)]);

    expect(result.status).toBe('failed');
    expect(result.error).toMatchObject({ code: 'INTERNAL_ERROR', source: 'agent', retryable: false });
    expect(result.error?.message).toContain('the startTurn step crashed: detect is broken');
    expect(events.at(-1)?.payload).toEqual({ type: 'error', fatal: true, error: result.error!.toJSON() });
    expect(fatal(events)).toHaveLength(1);
    expect(provider.calls).toBe(0);

    // The session is left idle and whole: the next turn runs.
    detect.mockRestore();
    expect((await (await session.sendMessage('again')).result).status).toBe('completed');
    expect(agent.unreportedErrors).toEqual([]);
    await agent.shutdown();
  });

  it('a crash in the streaming step’s own handling is not blamed on the provider', async () => {
    const { agent } = await createTestAgent({ script: [reply.text('streamed fine')] });
    vi.spyOn(ResponseDraft.prototype, 'add').mockImplementation(() => {
      throw new TypeError('draft is broken');
    });
    const session = await agent.newSession();
    const result = await (await session.sendMessage('hello')).result;

    expect(result.status).toBe('failed');
    expect(result.error).toMatchObject({ code: 'INTERNAL_ERROR', source: 'agent' });
    expect(result.error?.message).toContain('the streamModel step crashed: draft is broken');
    await agent.shutdown();
  });

  it('what the provider itself throws stays PROVIDER_ERROR from the provider', async () => {
    const { agent } = await createTestAgent({ script: [reply.error(new TypeError('socket closed'))] });
    const session = await agent.newSession();
    const result = await (await session.sendMessage('hello')).result;
    expect(result.error).toMatchObject({ code: 'PROVIDER_ERROR', source: 'provider' });
    await agent.shutdown();
  });
});

describe('a turn whose machine crashes', () => {
  it('still ends: turn.result settles failed with INTERNAL_ERROR, its events end with it, the session goes on', async () => {
    const { agent } = await createTestAgent({ script: [reply.text('one'), reply.text('two')] });
    const emit = EventHub.prototype.emit;
    let broken = true;
    // The terminal event is emitted by an action of the Turn machine: throwing there crashes it.
    vi.spyOn(EventHub.prototype, 'emit').mockImplementation(function (
      this: EventHub,
      turnId: string | null,
      payload: AgentEventPayload,
    ) {
      if (broken && payload.type === 'turn_complete') throw new TypeError('hub is broken');
      return emit.call(this, turnId, payload);
    });
    const session = await agent.newSession();
    const turn = await session.sendMessage('hello');
    const [result, events] = await Promise.all([turn.result, eventsOf(turn)]);

    expect(result.status).toBe('failed');
    expect(result.error).toMatchObject({ code: 'INTERNAL_ERROR', source: 'agent' });
    expect(result.error?.message).toContain('hub is broken');
    expect(events.map((e) => e.payload.type)).toEqual(['text_delta', 'error']);
    expect(fatal(events)).toEqual([{ type: 'error', fatal: true, error: result.error!.toJSON() }]);

    broken = false;
    expect((await (await session.sendMessage('again')).result).status).toBe('completed');
    expect(agent.unreportedErrors).toEqual([]);
    await agent.shutdown();
  });

  it('still ends when the event stream itself is broken: the result settles, the error is kept as unreported', async () => {
    let broken = false;
    // Every event and record reads the clock: a clock that throws breaks them all.
    const clock = {
      now: () => {
        if (broken) throw new RangeError('the clock broke');
        return Date.now();
      },
      setTimeout: (callback: () => void, ms: number) => setTimeout(callback, ms),
      clearTimeout: (handle: unknown) => clearTimeout(handle as ReturnType<typeof setTimeout>),
    };
    const { agent } = await createTestAgent({ config: { clock }, script: [reply.text('unused')] });
    const session = await agent.newSession();
    broken = true;
    const turn = await session.sendMessage('hello');
    const result = await turn.result;
    broken = false;

    expect(result).toMatchObject({ status: 'failed', error: { code: 'INTERNAL_ERROR', source: 'agent' } });
    expect(result.error?.message).toContain('the clock broke');
    // Its events complete: nothing more will come.
    expect(await eventsOf(turn)).toEqual([]);
    expect(agent.unreportedErrors).toEqual([result.error]);
    await agent.shutdown();
  });
});

describe('agents side by side', () => {
  it('each agent’s steps reach its own sessions, provider and plugins, also when their turns interleave', async () => {
    const seen: string[] = [];
    const watcher = (name: string) => testPlugin(`watch-${name}`, { turn_start: () => void seen.push(name) });
    const one = await createTestAgent({ script: [reply.text('from one')], plugins: [watcher('one')] });
    const two = await createTestAgent({ script: [reply.text('from two')], plugins: [watcher('two')] });
    const [a, b] = await Promise.all([one.agent.newSession(), two.agent.newSession()]);
    const [first, second] = await Promise.all([a.sendMessage('hi one'), b.sendMessage('hi two')]);
    const results = await Promise.all([first.result, second.result]);

    expect(results.map((r) => r.status)).toEqual(['completed', 'completed']);
    expect(a.messages.at(-1)).toMatchObject({ content: [{ text: 'from one' }] });
    expect(b.messages.at(-1)).toMatchObject({ content: [{ text: 'from two' }] });
    expect([one.provider.calls, two.provider.calls]).toEqual([1, 1]);
    expect(seen.sort()).toEqual(['one', 'two']);
    await Promise.all([one.agent.shutdown(), two.agent.shutdown()]);
  });
});
