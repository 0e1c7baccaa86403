import { describe, expect, it } from 'vitest';
import type { ModelProvider } from '../../src/index.js';
import { reply } from '../../src/testing/index.js';
import { createTestAgent, testPlugin } from '../support/agent.js';
import { eventsOf, types } from '../support/events.js';

describe('a conversation through the public API', () => {
  it('streams deltas, keeps the history across turns and sends it to the model', async () => {
    const { agent, provider } = await createTestAgent({
      script: [
        reply.text('Hello there!', {
          chunks: 3,
          reasoning: 'greet back',
          usage: { inputTokens: 10, outputTokens: 4 },
        }),
        reply.text('You said hi.', { usage: { inputTokens: 20, outputTokens: 5 } }),
      ],
    });
    const session = await agent.newSession();
    const first = await session.sendMessage('hi');
    const events = await eventsOf(first);
    expect(types(events)).toEqual([
      'reasoning_delta',
      'text_delta',
      'text_delta',
      'text_delta',
      'usage',
      'turn_complete',
    ]);
    expect(
      events
        .filter((e) => e.payload.type === 'text_delta')
        .map((e) => (e.payload as { text: string }).text)
        .join(''),
    ).toBe('Hello there!');
    expect(await first.result).toEqual({
      status: 'completed',
      usage: { inputTokens: 10, outputTokens: 4, totalTokens: 14 },
      cost: null,
    });

    const second = await session.sendMessage({ content: [{ type: 'text', text: 'what did I say?' }] });
    await second.result;
    expect(provider.requests[1]!.messages).toEqual([
      { type: 'user', content: [{ type: 'text', text: 'hi' }] },
      { type: 'assistant', content: [{ type: 'text', text: 'Hello there!' }], status: 'complete' },
      { type: 'user', content: [{ type: 'text', text: 'what did I say?' }] },
    ]);
    expect(provider.requests[1]!.purpose).toBe('turn');
    expect(session.messages).toHaveLength(4);
    await agent.shutdown();
  });

  it('reports usage with cost from the pricing table, and a server cost wins over it', async () => {
    const { agent } = await createTestAgent({
      script: [
        reply.text('a', { usage: { inputTokens: 1_000_000, outputTokens: 1_000_000 } }),
        reply.text('b', { usage: { inputTokens: 10, outputTokens: 10 }, cost: 0.5 }),
      ],
    });
    // The scripted model has no pricing: only the server-reported cost appears.
    const session = await agent.newSession();
    const a = await eventsOf(await session.sendMessage('x'));
    expect(a.find((e) => e.payload.type === 'usage')!.payload).toEqual({
      type: 'usage',
      usage: { inputTokens: 1_000_000, outputTokens: 1_000_000, totalTokens: 2_000_000 },
    });
    const b = await eventsOf(await session.sendMessage('y'));
    expect(b.find((e) => e.payload.type === 'usage')!.payload).toMatchObject({ cost: 0.5 });
    await agent.shutdown();
  });

  it('prices usage with ModelInfo.pricing', async () => {
    const { agent } = await createTestAgent({
      sessionStorage: null,
      models: [
        {
          id: 'priced',
          displayName: 'Priced',
          contextWindow: 100_000,
          capabilities: { toolUse: true, vision: false, streaming: true },
          pricing: { inputPerMillion: 2, outputPerMillion: 8 },
        },
      ],
      script: [reply.text('ok', { usage: { inputTokens: 500_000, outputTokens: 250_000 } })],
    });
    const session = await agent.newSession();
    const events = await eventsOf(await session.sendMessage('x'));
    expect(events.find((e) => e.payload.type === 'usage')!.payload).toMatchObject({ cost: 1 + 2 });
    await agent.shutdown();
  });

  it('builds the system prompt from instructions, override, personality and environment', async () => {
    const { agent, provider } = await createTestAgent({
      script: [reply.text('ok'), reply.text('ok')],
      config: {
        systemInstructions: ['Be brief.'],
        personality: 'Cheerful.',
        environmentContext: () => ({ timezone: 'UTC' }),
      },
    });
    const session = await agent.newSession({ systemPromptOverride: 'Answer in French.' });
    await (
      await session.sendMessage('x')
    ).result;
    const prompt = provider.requests[0]!.systemPrompt;
    const order = ['Be brief.', 'Answer in French.', 'Cheerful.', 'timezone: UTC'].map((s) =>
      prompt.indexOf(s),
    );
    expect(order.every((i) => i >= 0)).toBe(true);
    expect([...order].sort((x, y) => x - y)).toEqual(order);
    await agent.shutdown();
  });

  it('injects an invoked /skill as a system message right before the user message', async () => {
    const { agent, provider } = await createTestAgent({
      sessionStorage: null,
      script: [reply.text('done')],
      skills: [{ name: 'review', description: 'Review code', prompt: 'Review carefully.' }],
    });
    const session = await agent.newSession();
    await (
      await session.sendMessage('/review this please')
    ).result;
    expect(provider.requests[0]!.messages.slice(0, 2)).toEqual([
      { type: 'system', content: '<skill>\n<name>review</name>\nReview carefully.\n</skill>' },
      { type: 'user', content: [{ type: 'text', text: '/review this please' }] },
    ]);
    await agent.shutdown();
  });
});

describe('the history is protected', () => {
  it('a hook or provider that mutates the request cannot change the session history', async () => {
    type TextBlock = { type: 'text'; text: string };
    const careless: ModelProvider = {
      id: 'careless',
      models: [
        {
          id: 'm',
          displayName: 'M',
          contextWindow: 10_000,
          capabilities: { toolUse: true, vision: false, streaming: true },
        },
      ],
      async *chat(request) {
        (request.messages[0] as { content: TextBlock[] }).content[0]!.text = 'tampered by the provider';
        yield { type: 'text_delta', text: 'ok' };
        yield { type: 'done', finishReason: 'stop' };
      },
    };
    const { agent } = await createTestAgent({
      provider: careless,
      sessionStorage: null,
      plugins: [
        testPlugin('careless-hook', {
          pre_request: ({ data }) => {
            (data.request.messages[0] as { content: TextBlock[] }).content.push({
              type: 'text',
              text: 'injected',
            });
          },
        }),
      ],
    });
    const session = await agent.newSession();
    await (
      await session.sendMessage('hello')
    ).result;
    expect(session.messages).toEqual([
      { type: 'user', content: [{ type: 'text', text: 'hello' }] },
      { type: 'assistant', content: [{ type: 'text', text: 'ok' }], status: 'complete' },
    ]);
    await agent.shutdown();
  });
});
