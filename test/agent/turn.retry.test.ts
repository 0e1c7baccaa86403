import { describe, expect, it } from 'vitest';
import { AgentError, HookResult } from '../../src/index.js';
import { reply } from '../../src/testing/index.js';
import { createTestAgent, testPlugin } from '../support/agent.js';
import { eventsOf, types } from '../support/events.js';

const overloaded = () => new AgentError('PROVIDER_ERROR', 'overloaded', { retryable: true, retryAfterMs: 1 });
const fast = { retry: { maxRetries: 2, initialDelayMs: 1, maxDelayMs: 2 } };

describe('retries of model requests', () => {
  it('retries a retryable failure and succeeds, announcing each retry with its wait (no error event)', async () => {
    const { agent, provider } = await createTestAgent({
      config: fast,
      script: [reply.error(overloaded()), reply.error(overloaded()), reply.text('finally')],
    });
    const session = await agent.newSession();
    const turn = await session.sendMessage('hi');
    const events = await eventsOf(turn);
    expect((await turn.result).status).toBe('completed');
    expect(provider.calls).toBe(3);
    expect(types(events)).toEqual(['retry_scheduled', 'retry_scheduled', 'text_delta', 'turn_complete']);
    expect(events.filter((e) => e.payload.type === 'retry_scheduled').map((e) => e.payload)).toEqual([
      { type: 'retry_scheduled', attempt: 1, delayMs: expect.any(Number), error: overloaded().toJSON() },
      { type: 'retry_scheduled', attempt: 2, delayMs: expect.any(Number), error: overloaded().toJSON() },
    ]);
    // Only one assistant message: failed attempts leave no trace in the history.
    expect(session.messages.filter((m) => m.type === 'assistant')).toHaveLength(1);
    await agent.shutdown();
  });

  it('fails with the last error once retries are exhausted', async () => {
    const { agent, provider } = await createTestAgent({
      config: fast,
      script: [reply.error(overloaded()), reply.error(overloaded()), reply.error(overloaded())],
    });
    const session = await agent.newSession();
    const turn = await session.sendMessage('hi');
    const events = await eventsOf(turn);
    const result = await turn.result;
    expect(result.status).toBe('failed');
    expect(result.error?.code).toBe('PROVIDER_ERROR');
    expect(provider.calls).toBe(3);
    expect(events.at(-1)!.payload).toMatchObject({
      type: 'error',
      fatal: true,
      error: { code: 'PROVIDER_ERROR', retryable: true },
    });
    await agent.shutdown();
  });

  it('does not retry after output: the partial answer stays incomplete and the turn fails', async () => {
    const { agent, provider } = await createTestAgent({
      config: fast,
      script: [
        [
          { type: 'text_delta', text: 'Par' },
          { type: 'throw', error: overloaded() },
        ],
        reply.text('unused'),
      ],
    });
    const session = await agent.newSession();
    const turn = await session.sendMessage('hi');
    await turn.result;
    expect(provider.calls).toBe(1);
    expect((await turn.result).status).toBe('failed');
    expect(session.messages[1]).toEqual({
      type: 'assistant',
      content: [{ type: 'text', text: 'Par' }],
      status: 'incomplete',
    });
    const live = [...session.messages];
    await session.close();
    expect((await agent.resumeSession(session.id)).messages).toEqual(live);
    await agent.shutdown();
  });

  it('wraps a non-AgentError thrown by a provider as a non-retryable PROVIDER_ERROR', async () => {
    const { agent, provider } = await createTestAgent({
      config: fast,
      script: [reply.error(new TypeError('oops')), reply.text('x')],
    });
    const session = await agent.newSession();
    const result = await (await session.sendMessage('hi')).result;
    expect(result.status).toBe('failed');
    expect(result.error).toMatchObject({ code: 'PROVIDER_ERROR', retryable: false });
    expect(result.error?.message).toContain('oops');
    expect(provider.calls).toBe(1);
    await agent.shutdown();
  });

  it('fails a stream that ends without a finish reason (retryable: the connection broke)', async () => {
    const { agent, provider } = await createTestAgent({
      config: { retry: { maxRetries: 0 } },
      script: [[{ type: 'text_delta', text: 'cut' }]],
    });
    const session = await agent.newSession();
    const result = await (await session.sendMessage('hi')).result;
    expect(result).toMatchObject({ status: 'failed', error: { code: 'PROVIDER_ERROR', retryable: true } });
    expect(provider.calls).toBe(1);
    await agent.shutdown();
  });

  it('fires pre_request per attempt, on_retry with attempt and delay, and on_error before the failure surfaces', async () => {
    const log: string[] = [];
    const watch = testPlugin('watch', {
      pre_request: ({ data }) => void log.push(`pre:${data.attempt}`),
      on_retry: ({ data }) => void log.push(`retry:${data.attempt}:${data.delayMs}:${data.error.code}`),
      on_error: ({ data }) => void log.push(`error:${data.error.code}`),
      turn_end: ({ data }) => void log.push(`end:${data.status}`),
    });
    const { agent } = await createTestAgent({
      config: fast,
      sessionStorage: null,
      plugins: [watch],
      script: [reply.error(overloaded()), reply.error(overloaded()), reply.error(overloaded())],
    });
    const session = await agent.newSession();
    await (
      await session.sendMessage('hi')
    ).result;
    expect(log).toEqual([
      'pre:1',
      'retry:1:1:PROVIDER_ERROR',
      'pre:2',
      'retry:2:1:PROVIDER_ERROR',
      'pre:3',
      'error:PROVIDER_ERROR',
      'end:failed',
    ]);
    await agent.shutdown();
  });

  it('an on_retry abort stops the retries', async () => {
    const { agent, provider } = await createTestAgent({
      config: fast,
      sessionStorage: null,
      plugins: [testPlugin('no-retry', { on_retry: () => HookResult.abort('budget') })],
      script: [reply.error(overloaded()), reply.text('unused')],
    });
    const session = await agent.newSession();
    const result = await (await session.sendMessage('hi')).result;
    expect(result.status).toBe('failed');
    expect(provider.calls).toBe(1);
    await agent.shutdown();
  });
});
