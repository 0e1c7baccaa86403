/**
 * The examples of docs/readme/session-lifecycle.md, run as written (with the logging replaced by
 * recording), so the README says what the runtime does.
 */
import { describe, expect, it } from 'vitest';
import type { AnyActor } from 'xstate';
import { AgentBuilder, AgentError, InMemoryMemoryStorage, InMemorySessionStorage } from '../../src/index.js';
import { ScriptedModelProvider, reply } from '../../src/testing/index.js';

describe('README: session lifecycle', () => {
  it('opens, guards, closes with memory extraction, resumes and shuts down as the example says', async () => {
    const provider = new ScriptedModelProvider({
      script: [
        reply.text('Noted: you like tea.'),
        reply.text('{"memories":[{"content":"likes tea"}]}'),
        reply.text('{"memories":[]}'),
      ],
    });
    const memories = new InMemoryMemoryStorage();
    const agent = await new AgentBuilder({ defaultModel: 'scripted-model', memory: { namespace: 'alice' } })
      .registerModelProvider(provider)
      .registerSessionStorage(new InMemorySessionStorage())
      .registerMemoryStorage(memories)
      .build();

    const session = await agent.newSession();
    const logged: unknown[] = [];
    session.events.subscribe((e) => logged.push([e.sequence, e.turnId, e.payload.type]));

    const turn = await session.sendMessage('I like tea.');
    let code: string | undefined;
    try {
      await session.sendMessage('and coffee?');
    } catch (error) {
      if (AgentError.isInstance(error)) code = error.code;
    }
    expect(code).toBe('TURN_BUSY');
    expect(await turn.result).toMatchObject({ status: 'completed' });

    await session.close();
    expect(await memories.search('alice', '', 10)).toEqual([
      expect.objectContaining({ content: 'likes tea' }),
    ]);
    const again = await agent.resumeSession(session.id);
    expect(again.messages).toEqual(session.messages);
    await agent.shutdown();

    expect(logged).toEqual([
      [1, turn.id, 'text_delta'],
      [2, turn.id, 'turn_complete'],
    ]);
    provider.assertConsumed();
  });

  it('logs machine snapshots with the inspect example', async () => {
    const provider = new ScriptedModelProvider({ script: [reply.text('hi')] });
    const logged: [string, unknown][] = [];
    const inspected = await new AgentBuilder({
      defaultModel: 'scripted-model',
      inspect: (event) => {
        if (event.type !== '@xstate.snapshot') return;
        const machine = ((event.actorRef as AnyActor).logic as { id?: string }).id;
        if (machine) logged.push([machine, (event.snapshot as { value?: unknown }).value]);
      },
    })
      .registerModelProvider(provider)
      .build();
    const session = await inspected.newSession();
    await (
      await session.sendMessage('hello')
    ).result;
    await inspected.shutdown();

    expect(logged).toContainEqual(['agent', 'ready']);
    expect(logged).toContainEqual(['session', { open: 'idle' }]);
    expect(logged).toContainEqual(['turn', { working: 'requesting' }]);
    expect(logged).toContainEqual(['turn', 'completed']);
  });
});
