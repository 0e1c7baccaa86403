import { describe, expect, it } from 'vitest';
import { AgentError } from '../../src/index.js';
import { reply } from '../../src/testing/index.js';
import { createTestAgent } from '../support/agent.js';
import { record } from './support.js';

describe('a retried request in the conversation', () => {
  it('is one live warning notice with the wait, followed by the answer', async () => {
    const overloaded = new AgentError('PROVIDER_ERROR', 'overloaded', {
      retryable: true,
      retryAfterMs: 1_500,
    });
    const { agent } = await createTestAgent({
      config: { retry: { maxRetries: 1, initialDelayMs: 0, maxDelayMs: 2_000 } },
      script: [reply.error(overloaded), reply.text('Here.')],
    });
    const session = await agent.newSession();
    const view = record(session);
    await (
      await session.sendMessage('Are you there?')
    ).result;
    const notices = view.latest.items.filter((item) => item.kind === 'notice');
    expect(notices).toEqual([
      expect.objectContaining({
        level: 'warning',
        text: 'Retrying in 2 s (attempt 1 failed: overloaded)',
      }),
    ]);
    expect(view.latest.items.map((item) => item.kind)).toEqual(['user', 'notice', 'assistant']);
    await agent.shutdown();
  });
});
