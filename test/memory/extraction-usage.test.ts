/**
 * The usage of a memory extraction is reported (`turnId: null`) as soon as the answer is in, so
 * tokens spent on an answer that is then rejected are still counted.
 */
import { describe, expect, it } from 'vitest';
import { AgentBuilder, InMemoryMemoryStorage, type AgentEvent } from '../../src/index.js';
import { SCRIPTED_MODEL, ScriptedModelProvider, reply } from '../../src/testing/index.js';

async function closeWithExtraction(answer: string) {
  const provider = new ScriptedModelProvider({
    script: [
      reply.text('Noted.'),
      reply.text(answer, { usage: { inputTokens: 300, outputTokens: 7 }, cost: 0.5 }),
    ],
  });
  const agent = await new AgentBuilder({ defaultModel: SCRIPTED_MODEL.id, memory: { namespace: 'alice' } })
    .registerModelProvider(provider)
    .registerMemoryStorage(new InMemoryMemoryStorage())
    .build();
  const session = await agent.newSession();
  await (
    await session.sendMessage('I like tea.')
  ).result;
  const outside: AgentEvent[] = [];
  session.events.subscribe((e) => e.turnId === null && outside.push(e));
  await session.close();
  await agent.shutdown();
  provider.assertConsumed();
  return outside.map((e) => e.payload);
}

describe('memory extraction usage', () => {
  it('is reported for an answer that is saved', async () => {
    expect(await closeWithExtraction('{"memories":[{"content":"The user likes tea."}]}')).toEqual([
      expect.objectContaining({ type: 'usage', cost: 0.5 }),
    ]);
  });

  it('is reported for an answer that is rejected, before its MEMORY_FAILED', async () => {
    expect(await closeWithExtraction('I would rather not say.')).toEqual([
      expect.objectContaining({ type: 'usage', cost: 0.5 }),
      expect.objectContaining({
        type: 'error',
        fatal: false,
        error: expect.objectContaining({ code: 'MEMORY_FAILED' }),
      }),
    ]);
  });
});
