/**
 * The README's example of `youyou-agent/testing`: an agent driven by a ScriptedModelProvider,
 * with in-memory storage, through the public API only.
 */
import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { AgentBuilder, InMemoryMemoryStorage, InMemorySessionStorage, defineTool } from '../../src/index.js';
import { ScriptedModelProvider, UnscriptedModelCallError, reply } from '../../src/testing/index.js';

const weather = defineTool({
  name: 'get_weather',
  description: 'Current weather of a city',
  parameters: z.object({ city: z.string() }),
  execute: async ({ arguments: args }) => `sunny in ${args.city}`,
});

describe('an agent driven by a ScriptedModelProvider', () => {
  it('runs a tool round trip, shows the model the tool result, and persists the session', async () => {
    const provider = new ScriptedModelProvider({
      script: [
        reply.toolCalls([{ name: 'get_weather', arguments: { city: 'Oslo' }, callId: 'c1' }]),
        reply.text('Sunny in Oslo.', { chunks: 2, usage: { inputTokens: 20, outputTokens: 5 } }),
      ],
    });
    const storage = new InMemorySessionStorage();
    const agent = await new AgentBuilder({ defaultModel: 'scripted-model' })
      .registerModelProvider(provider)
      .registerTool(weather)
      .registerSessionStorage(storage)
      .build();

    const session = await agent.newSession();
    const turn = await session.sendMessage('Weather in Oslo?');
    const types: string[] = [];
    turn.events.subscribe((event) => types.push(event.payload.type));
    const result = await turn.result;

    expect(result.status).toBe('completed');
    expect(types).toEqual([
      'tool_call_start',
      'tool_call_end',
      'text_delta',
      'text_delta',
      'usage',
      'turn_complete',
    ]);
    provider.assertConsumed();
    expect(provider.requests[1]?.messages).toContainEqual({
      type: 'tool_result',
      callId: 'c1',
      content: 'sunny in Oslo',
      isError: false,
    });
    const { sessions } = await storage.listSessions(null, 10);
    expect(sessions).toMatchObject([
      { id: session.id, title: 'Weather in Oslo?', modelId: 'scripted-model', turnCount: 1 },
    ]);

    await session.close();
    const resumed = await agent.resumeSession(session.id);
    expect(resumed.messages).toEqual(session.messages);
    await agent.shutdown();
  });

  it('holds a response open with wait, and sees the request aborted when the turn is cancelled', async () => {
    const never = new Promise<void>(() => {});
    const provider = new ScriptedModelProvider({
      script: [
        [
          { type: 'text_delta', text: 'Let me think' },
          { type: 'wait', until: never },
          ...reply.text('never sent'),
        ],
      ],
    });
    const agent = await new AgentBuilder({ defaultModel: 'scripted-model' })
      .registerModelProvider(provider)
      .build();
    const session = await agent.newSession();
    const turn = await session.sendMessage('Think hard');

    // The first delta proves the stream is open and parked on `wait`.
    await new Promise<void>((resolve) => {
      const subscription = turn.events.subscribe((event) => {
        if (event.payload.type === 'text_delta') {
          subscription.unsubscribe();
          resolve();
        }
      });
    });
    turn.cancel();
    const result = await turn.result;

    expect(result.status).toBe('cancelled');
    expect(provider.aborted).toBe(1);
    expect(session.messages).toContainEqual({
      type: 'assistant',
      content: [{ type: 'text', text: 'Let me think' }],
      status: 'incomplete',
    });
    await agent.shutdown();
  });

  it('fails a turn the script has no response for, with the UnscriptedModelCallError as its cause, and assertConsumed throws it', async () => {
    const provider = new ScriptedModelProvider({ script: [reply.text('Hello!')] });
    const agent = await new AgentBuilder({ defaultModel: 'scripted-model' })
      .registerModelProvider(provider)
      .build();
    const session = await agent.newSession();
    expect((await (await session.sendMessage('Hi')).result).status).toBe('completed');

    const result = await (await session.sendMessage('And tomorrow?')).result;

    expect(result.status).toBe('failed');
    expect(result.error).toMatchObject({ code: 'PROVIDER_ERROR', retryable: false });
    expect(result.error?.message).toContain(
      `no scripted response for call #2 (purpose 'turn', model 'scripted-model', last user text "And tomorrow?")`,
    );
    const [unscripted] = provider.unscriptedCalls;
    expect(UnscriptedModelCallError.isInstance(unscripted)).toBe(true);
    expect(result.error?.cause).toBe(unscripted);
    expect(() => provider.assertConsumed()).toThrow(unscripted!);
    await agent.shutdown();
  });

  it('keeps an unscripted call whose failure the agent only reports (memory extraction at close), so assertConsumed throws it', async () => {
    const provider = new ScriptedModelProvider({ script: [reply.text('Noted.')] });
    const agent = await new AgentBuilder({ defaultModel: 'scripted-model', memory: { namespace: 'user-1' } })
      .registerModelProvider(provider)
      .registerMemoryStorage(new InMemoryMemoryStorage())
      .build();
    const session = await agent.newSession();
    expect((await (await session.sendMessage('I like tea.')).result).status).toBe('completed');
    const errors: string[] = [];
    session.events.subscribe((event) => {
      if (event.payload.type === 'error') errors.push(event.payload.error.message);
    });

    await session.close();

    expect(errors).toEqual([expect.stringContaining("call #2 (purpose 'memory_extraction'")]);
    expect(() => provider.assertConsumed()).toThrow(
      /^ScriptedModelProvider: no scripted response for call #2 \(purpose 'memory_extraction'/,
    );
    await agent.shutdown();
  });
});
