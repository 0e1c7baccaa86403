/**
 * `ctx.watch`: a watcher sees each session open (with its events, stored records and a way to
 * store one) and may wrap its providers; one that throws does not break the session.
 */
import { describe, expect, it } from 'vitest';
import type { AgentEvent, ChatRequest, ModelProvider, Plugin, RuntimeWatcher } from '../../src/index.js';
import { reply } from '../../src/testing/index.js';
import { createTestAgent } from '../support/agent.js';

const watching = (watcher: RuntimeWatcher): Plugin => ({
  id: 'watching',
  displayName: 'watching',
  description: 'watches',
  apply: (ctx) => ctx.watch(watcher),
});

describe('ctx.watch', () => {
  it('sees each session, its events and each request; what it records is in stored when resumed', async () => {
    const seen: string[] = [];
    const requests: ChatRequest['purpose'][] = [];
    const events: AgentEvent['payload']['type'][] = [];
    const stored: unknown[] = [];
    const watcher: RuntimeWatcher = (session) => {
      seen.push(`${typeof session.id} ${session.modelId}`);
      stored.push(...session.stored.filter((e) => e.payload.type === 'metadata' && e.payload.key === 'mark'));
      session.events.subscribe((e) => events.push(e.payload.type));
      if (session.stored.length === 0) session.record('mark', { by: 'watcher' });
      return (provider): ModelProvider => ({
        id: provider.id,
        models: provider.models,
        chat: (request, signal) => {
          requests.push(request.purpose);
          return provider.chat(request, signal);
        },
      });
    };
    const { agent, sessionStorage } = await createTestAgent({
      plugins: [watching(watcher)],
      script: [reply.text('ok')],
    });
    const session = await agent.newSession();
    await (
      await session.sendMessage('hi')
    ).result;
    await session.close();
    const again = await createTestAgent({ plugins: [watching(watcher)], sessionStorage });
    await again.agent.resumeSession(session.id);

    expect(seen).toEqual(['string scripted-model', 'string scripted-model']);
    expect(requests).toEqual(['turn']);
    expect(events).toEqual(['text_delta', 'turn_complete']);
    expect(stored.map((e) => (e as { payload: unknown }).payload)).toEqual([
      { type: 'metadata', key: 'mark', value: { by: 'watcher' } },
    ]);
    await agent.shutdown();
    await again.agent.shutdown();
  });

  it('a watcher that throws does not watch, and the session goes on', async () => {
    const { agent } = await createTestAgent({
      plugins: [
        watching(() => {
          throw new Error('broken watcher');
        }),
      ],
      script: [reply.text('ok')],
    });
    const session = await agent.newSession();
    expect((await (await session.sendMessage('hi')).result).status).toBe('completed');
    await agent.shutdown();
  });

  it('watch() outside apply() is INVALID_INPUT', async () => {
    let later: (() => void) | undefined;
    const { agent } = await createTestAgent({
      plugins: [
        {
          id: 'late',
          displayName: 'late',
          description: 'late',
          apply: (ctx) => (later = () => ctx.watch(() => {})),
        },
      ],
    });
    expect(later).toThrow(expect.objectContaining({ code: 'INVALID_INPUT' }));
    await agent.shutdown();
  });
});
