/**
 * `usage` and `cost` sum every model response of the session (`cost: null` while none reported
 * one); each response's usage is stored, so a resumed session's totals go on from there. The context
 * meter shows the session's estimate, the model's window and the compaction threshold.
 */
import { describe, expect, it } from 'vitest';
import { reply, SCRIPTED_MODEL } from '../../src/testing/index.js';
import { createTestAgent, recordingTool } from '../support/agent.js';
import { current } from './support.js';

describe('conversation totals', () => {
  it('sum the usage of every response, and the costs of those that had one', async () => {
    const echo = recordingTool('echo');
    const { agent } = await createTestAgent({
      tools: [echo.tool],
      script: [
        reply.toolCalls([{ name: 'echo', arguments: { text: 'a' } }], {
          usage: { inputTokens: 10, outputTokens: 2 },
        }),
        reply.text('one', { usage: { inputTokens: 20, outputTokens: 3, cachedInputTokens: 8 }, cost: 0.25 }),
        reply.text('two'), // no usage reported
        reply.text('three', { usage: { inputTokens: 40, outputTokens: 5 }, cost: 0.5 }),
      ],
    });
    const session = await agent.newSession();
    await (
      await session.sendMessage('first')
    ).result;
    expect(current(session)).toMatchObject({
      usage: { inputTokens: 30, outputTokens: 5, cachedInputTokens: 8, totalTokens: 35 },
      cost: 0.25,
    });
    await (
      await session.sendMessage('second')
    ).result;
    await (
      await session.sendMessage('third')
    ).result;
    expect(current(session)).toMatchObject({
      usage: { inputTokens: 70, outputTokens: 10, cachedInputTokens: 8, totalTokens: 80 },
      cost: 0.75,
    });
    await agent.shutdown();
  });

  it('keep cost null while no response reported one', async () => {
    const { agent } = await createTestAgent({
      script: [reply.text('a', { usage: { inputTokens: 3, outputTokens: 1 } })],
    });
    const session = await agent.newSession();
    await (
      await session.sendMessage('x')
    ).result;
    expect(current(session)).toMatchObject({ usage: { totalTokens: 4 }, cost: null });
    await agent.shutdown();
  });

  it('go on after a resume from the stored usage of every response', async () => {
    const { agent } = await createTestAgent({
      script: [
        reply.text('a', { usage: { inputTokens: 3, outputTokens: 1 }, cost: 0.1 }),
        reply.text('b', { usage: { inputTokens: 5, outputTokens: 2 }, cost: 0.2 }),
      ],
    });
    const session = await agent.newSession();
    await (
      await session.sendMessage('x')
    ).result;
    await session.close();
    const resumed = await agent.resumeSession(session.id);
    expect(current(resumed)).toMatchObject({
      usage: { inputTokens: 3, outputTokens: 1, totalTokens: 4 },
      cost: 0.1,
    });
    await (
      await resumed.sendMessage('y')
    ).result;
    expect(current(resumed)).toMatchObject({ usage: { totalTokens: 11 } });
    expect(current(resumed).cost).toBeCloseTo(0.3, 12);
    await agent.shutdown();
  });
});

describe('the context meter', () => {
  it('shows the window, the compaction threshold and the estimate, corrected by reported usage', async () => {
    const { agent } = await createTestAgent({
      script: [
        reply.text('Hello!', { usage: { inputTokens: 1_200, outputTokens: 30 } }),
        reply.text('Again.'),
      ],
    });
    const session = await agent.newSession();
    const empty = current(session).context;
    expect(empty).toMatchObject({ contextWindow: 128_000, compactAt: 95_200 });
    expect(empty.estimatedTokens).toBeGreaterThan(0); // the system prompt

    await (
      await session.sendMessage('Hi')
    ).result;
    // The provider counted 1,230 tokens for the history so far: the estimate starts from there.
    expect(current(session).context.estimatedTokens).toBe(1_230);
    await (
      await session.sendMessage('Once more')
    ).result;
    // 'Once more' and 'Again.' (15 characters) add ⌈15 / 4⌉ = 4 tokens.
    expect(current(session).context.estimatedTokens).toBe(1_234);
    await agent.shutdown();
  });

  it('compacts at the window itself when compaction is off, and at 1,300 of a 2,000-token window', async () => {
    for (const [enabled, compactAt] of [
      [true, 1_300],
      [false, 2_000],
    ] as const) {
      const { agent } = await createTestAgent({
        models: [{ ...SCRIPTED_MODEL, contextWindow: 2_000 }],
        config: { compaction: { enabled } },
      });
      const session = await agent.newSession();
      expect(current(session).context).toMatchObject({ contextWindow: 2_000, compactAt });
      await agent.shutdown();
    }
  });
});
