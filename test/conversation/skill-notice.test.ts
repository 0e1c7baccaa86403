import { describe, expect, it } from 'vitest';
import { InMemorySessionStorage } from '../../src/index.js';
import { reply } from '../../src/testing/index.js';
import { createTestAgent } from '../support/agent.js';
import { current } from './support.js';

describe('an invoked skill in the conversation', () => {
  it('is one info notice before the user item, live and after a resume', async () => {
    const sessionStorage = new InMemorySessionStorage();
    const { agent } = await createTestAgent({
      sessionStorage,
      skills: [{ name: 'stepwise', description: 'Think in steps', prompt: 'Answer step by step.' }],
      script: [reply.text('Step 1.')],
    });
    const session = await agent.newSession();
    await (
      await session.sendMessage('/stepwise how?')
    ).result;
    const live = current(session).items;
    expect(live.map((item) => item.kind)).toEqual(['notice', 'user', 'assistant']);
    expect(live[0]).toMatchObject({ level: 'info', text: 'Using the skill /stepwise.' });
    await session.close();
    const resumed = await agent.resumeSession(session.id);
    expect(current(resumed).items).toEqual(live);
    await agent.shutdown();
  });
});
