/**
 * Hooks through plugins, end to end: registration order, `continue_with` chaining (turn_start's
 * dynamic sections reach the system prompt; pre_request's replacement reaches the provider),
 * aborts that block a request before the provider is called, a throwing handler reported as a
 * non-fatal HOOK_FAILED, `turn_end` on every outcome, and `post_request` with the usage.
 */
import { describe, expect, it } from 'vitest';
import { AgentError, HookResult, type HookHandler } from '../../src/index.js';
import { reply } from '../../src/testing/index.js';
import { createTestAgent, testPlugin as plugin } from '../support/agent.js';
import { eventsOf, firstEvent } from '../support/events.js';
import { deferred } from '../support/waits.js';

const config = { systemInstructions: ['You are helpful.'] };

describe('hook order and chaining', () => {
  it('runs handlers in registration order (plugin order, then tap order), not by id, each with its plugin config', async () => {
    const log: string[] = [];
    const zeta = plugin('zeta', {
      turn_start: [
        ({ pluginConfig }) => void log.push(`zeta#1 ${JSON.stringify(pluginConfig)}`),
        () => void log.push('zeta#2'),
      ],
    });
    const alpha = plugin('alpha', {
      turn_start: [({ pluginConfig }) => void log.push(`alpha ${JSON.stringify(pluginConfig)}`)],
    });
    const { agent } = await createTestAgent({
      config,
      script: [reply.text('ok')],
      plugins: [
        [zeta, { level: 1 }],
        [alpha, { level: 2 }],
      ],
    });
    const session = await agent.newSession();

    await (
      await session.sendMessage('hi')
    ).result;
    expect(log).toEqual(['zeta#1 {"level":1}', 'zeta#2', 'alpha {"level":2}']);
    await agent.shutdown();
  });

  it('chains turn_start continue_with: each handler sees the previous sections, and the final ones reach the system prompt', async () => {
    const seenByHandlers: string[][] = [];
    const clock = plugin('clock', {
      turn_start: [
        ({ data }) => {
          seenByHandlers.push([...data]);
          return HookResult.continueWith([...data, 'Current time: noon.']);
        },
      ],
    });
    const weather = plugin('weather', {
      turn_start: [
        ({ data }) => {
          seenByHandlers.push([...data]);
          return HookResult.continueWith([...data, 'Weather: light rain.']);
        },
      ],
    });
    const { agent, provider } = await createTestAgent({
      config,
      script: [reply.text('ok'), reply.text('ok')],
      plugins: [clock, weather],
    });
    const session = await agent.newSession();

    await (
      await session.sendMessage('What should I wear?')
    ).result;
    await (
      await session.sendMessage('And tomorrow?')
    ).result;

    // Each turn starts from no sections.
    expect(seenByHandlers).toEqual([[], ['Current time: noon.'], [], ['Current time: noon.']]);
    for (const request of provider.requests) {
      const prompt = request.systemPrompt;
      expect(prompt).toContain('You are helpful.');
      expect(prompt.indexOf('Current time: noon.')).toBeGreaterThan(prompt.indexOf('You are helpful.'));
      expect(prompt.indexOf('Weather: light rain.')).toBeGreaterThan(prompt.indexOf('Current time: noon.'));
    }
    // Sections are prompt text, not messages.
    expect(JSON.stringify(provider.requests[1]!.messages)).not.toContain('light rain');
    await agent.shutdown();
  });

  it('replaces the request with pre_request continue_with: the next handler and the provider see the new one', async () => {
    const seenByAuditor: string[] = [];
    const pirate = plugin('pirate', {
      pre_request: [
        ({ data }) =>
          HookResult.continueWith({
            ...data,
            request: { ...data.request, systemPrompt: 'You are a pirate.' },
          }),
      ],
    });
    const auditor = plugin('auditor', {
      pre_request: [({ data }) => void seenByAuditor.push(data.request.systemPrompt)],
    });
    const { agent, provider } = await createTestAgent({
      config,
      script: [reply.text('Arr.')],
      plugins: [pirate, auditor],
    });
    const session = await agent.newSession();

    const turn = await session.sendMessage('hello');
    expect((await turn.result).status).toBe('completed');
    expect(seenByAuditor).toEqual(['You are a pirate.']);
    expect(provider.requests[0]!.systemPrompt).toBe('You are a pirate.');
    await agent.shutdown();
  });
});

describe('aborts that block a request', () => {
  it.each(['turn_start', 'pre_request'] as const)(
    'a %s abort fails the turn with a fatal REQUEST_BLOCKED, stops the chain, and the provider is not called',
    async (event) => {
      const later: string[] = [];
      const guard = plugin('guard', { [event]: [() => HookResult.abort('budget exhausted')] });
      const after = plugin('after', { [event]: [() => void later.push('called')] });
      const { agent, provider } = await createTestAgent({
        config,
        script: [reply.text('never')],
        plugins: [guard, after],
      });
      const session = await agent.newSession();

      const turn = await session.sendMessage('hello');
      const result = await turn.result;
      expect(result.status).toBe('failed');
      expect(AgentError.isInstance(result.error) && result.error.code).toBe('REQUEST_BLOCKED');
      expect(result.error?.message).toContain('budget exhausted');

      const events = await eventsOf(turn);
      expect(events.at(-1)!.payload).toMatchObject({
        type: 'error',
        fatal: true,
        error: { code: 'REQUEST_BLOCKED' },
      });
      expect(provider.calls).toBe(0);
      expect(later).toEqual([]);
      await agent.shutdown();
    },
  );
});

describe('a throwing handler', () => {
  it('is reported as a non-fatal HOOK_FAILED naming plugin and event, counts as continue, and the turn completes', async () => {
    const after: string[][] = [];
    const broken = plugin('broken', {
      turn_start: [
        () => {
          throw new Error('lost my config');
        },
      ],
    });
    const fine = plugin('fine', {
      turn_start: [
        ({ data }) => {
          after.push([...data]);
          return HookResult.continueWith([...data, 'Fine section.']);
        },
      ],
    });
    const { agent, provider } = await createTestAgent({
      config,
      script: [reply.text('ok')],
      plugins: [broken, fine],
    });
    const session = await agent.newSession();

    const turn = await session.sendMessage('hello');
    expect((await turn.result).status).toBe('completed');
    const events = await eventsOf(turn);
    const errors = events.filter((e) => e.payload.type === 'error');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({
      turnId: turn.id,
      payload: { type: 'error', fatal: false, error: { code: 'HOOK_FAILED', source: 'plugin' } },
    });
    const message = errors[0]!.payload.type === 'error' ? errors[0]!.payload.error.message : '';
    expect(message).toContain('broken');
    expect(message).toContain('turn_start');
    expect(after).toEqual([[]]);
    expect(provider.requests[0]!.systemPrompt).toContain('Fine section.');
    expect(events.at(-1)!.payload.type).toBe('turn_complete');
    await agent.shutdown();
  });
});

describe('a handler that never settles or returns garbage', () => {
  const cases: [string, HookHandler<'pre_request'>][] = [
    // Never settles, so the (1 ms) hookTimeoutMs always cuts it off: no race to lose.
    ['never settles', () => new Promise<never>(() => {})],
    ['returns something that is not a HookResult', () => ({ type: 'maybe' }) as unknown as HookResult],
  ];

  it.each(cases)(
    '(%s) is reported as a non-fatal HOOK_FAILED and counts as continue',
    async (_name, handler) => {
      const { agent, provider } = await createTestAgent({
        config: { ...config, hookTimeoutMs: 1 },
        script: [reply.text('ok')],
        plugins: [plugin('odd', { pre_request: handler })],
      });
      const session = await agent.newSession();
      const turn = await session.sendMessage('hello');
      expect((await turn.result).status).toBe('completed');
      expect(provider.calls).toBe(1);
      const errors = (await eventsOf(turn)).filter((e) => e.payload.type === 'error');
      expect(errors.map((e) => e.payload)).toEqual([
        expect.objectContaining({
          fatal: false,
          error: expect.objectContaining({ code: 'HOOK_FAILED', message: expect.stringContaining('odd') }),
        }),
      ]);
      await agent.shutdown();
    },
  );
});

describe('turn_end and post_request', () => {
  it('fires turn_end for completed, cancelled and failed turns, with the status and usage', async () => {
    const ends: { status: string; outputTokens: number }[] = [];
    const release = deferred();
    const recorder = plugin('recorder', {
      turn_end: [
        ({ data }) => void ends.push({ status: data.status, outputTokens: data.usage.outputTokens }),
      ],
    });
    const { agent } = await createTestAgent({
      config,
      script: [
        reply.text('done', { usage: { inputTokens: 10, outputTokens: 4 } }),
        [
          { type: 'text_delta', text: 'partial' },
          { type: 'wait', until: release.promise },
        ],
        reply.error(new AgentError('PROVIDER_ERROR', 'invalid request', { retryable: false })),
      ],
      plugins: [recorder],
    });
    const session = await agent.newSession();

    await (
      await session.sendMessage('complete me')
    ).result;
    const cancelled = await session.sendMessage('cancel me');
    await firstEvent(cancelled.events, 'text_delta');
    cancelled.cancel();
    await cancelled.result;
    await (
      await session.sendMessage('fail me')
    ).result;

    expect(ends).toEqual([
      { status: 'completed', outputTokens: 4 },
      { status: 'cancelled', outputTokens: 0 },
      { status: 'failed', outputTokens: 0 },
    ]);
    await agent.shutdown();
  });

  it('gives post_request the response’s usage, finish reason and attempt', async () => {
    const seen: unknown[] = [];
    const meter = plugin('meter', {
      post_request: [({ data, turnId }) => void seen.push({ ...data, turnId })],
    });
    const { agent } = await createTestAgent({
      config,
      script: [
        reply.text('metered', { usage: { inputTokens: 120, outputTokens: 30, cachedInputTokens: 100 } }),
      ],
      plugins: [meter],
    });
    const session = await agent.newSession();

    const turn = await session.sendMessage('hello');
    await turn.result;
    expect(seen).toEqual([
      {
        turnId: turn.id,
        usage: { inputTokens: 120, outputTokens: 30, cachedInputTokens: 100, totalTokens: 150 },
        finishReason: 'stop',
        attempt: 1,
        durationMs: expect.any(Number),
      },
    ]);
    await agent.shutdown();
  });
});
