/**
 * The `session.close()` path of the session lifecycle: `session_end` with reason `close`, then
 * memory extraction (a failure is a non-fatal MEMORY_FAILED event and never blocks the close),
 * `session.events` completes, and `close()` is idempotent.
 */
import { describe, expect, it } from 'vitest';
import { InMemoryMemoryStorage, type HookPayload, type Plugin } from '../../src/index.js';
import { reply, type ScriptStep } from '../../src/testing/index.js';
import { createTestAgent, testPlugin } from '../support/agent.js';
import { firstEvent, recordEvents } from '../support/events.js';
import { deferred } from '../support/waits.js';

const NAMESPACE = 'user-1';

/** A plugin that logs `session_end` into `log` and keeps every `session_end` payload. */
function sessionEndRecorder(log: string[], payloads: HookPayload[]): Plugin {
  return testPlugin('recorder', {
    session_end: (payload) => {
      log.push('session_end');
      payloads.push(payload);
    },
  });
}

/**
 * An agent with memory (namespace `user-1`), a recording plugin and in-memory storages. `log` is
 * shared with the script's steps, so it records the order of hooks and model calls.
 */
async function agentWithMemory(script: ScriptStep[], log: string[] = []) {
  const memories = new InMemoryMemoryStorage();
  const sessionEnds: HookPayload[] = [];
  const { agent, provider } = await createTestAgent({
    script,
    memory: { namespace: NAMESPACE },
    memoryStorage: memories,
    plugins: [sessionEndRecorder(log, sessionEnds)],
  });
  return { agent, provider, memories, log, sessionEnds };
}

/** A script step that answers the memory-extraction request, logging that it was asked. */
function extractionAnswer(log: string[], text: string): ScriptStep {
  return (request) => {
    log.push(`extraction (${request.purpose})`);
    return reply.text(text);
  };
}

describe('session.close()', () => {
  it('fires session_end with reason close and the turn count, then extracts memories into the namespace', async () => {
    const log: string[] = [];
    const { agent, provider, memories, sessionEnds } = await agentWithMemory(
      [
        reply.text('Noted.'),
        reply.text('Earl Grey it is.'),
        extractionAnswer(log, '{"memories":[{"content":"likes tea"}]}'),
      ],
      log,
    );
    const session = await agent.newSession();
    for (const text of ['I like tea.', 'Which tea should I buy?']) {
      const turn = await session.sendMessage(text);
      expect((await turn.result).status).toBe('completed');
    }
    expect(await memories.search(NAMESPACE, '', 10)).toEqual([]);

    expect(log).toEqual([]);

    await session.close();

    expect(log).toEqual(['session_end', 'extraction (memory_extraction)']);
    expect(sessionEnds).toHaveLength(1);
    expect(sessionEnds[0]).toMatchObject({
      event: 'session_end',
      sessionId: session.id,
      turnId: null,
      data: { reason: 'close', turnCount: 2 },
    });

    const extraction = provider.requests.at(-1)!;
    expect(extraction.purpose).toBe('memory_extraction');
    expect(JSON.stringify(extraction.messages)).toContain('I like tea.');

    const saved = await memories.search(NAMESPACE, '', 10);
    expect(saved).toEqual([
      expect.objectContaining({ namespace: NAMESPACE, content: 'likes tea', sourceSessionId: session.id }),
    ]);
    expect(await memories.search('someone-else', '', 10)).toEqual([]);
    provider.assertConsumed();
    await agent.shutdown();
  });

  it('extracts memories from the whole session, including the turn close() waited for', async () => {
    const release = deferred();
    const { agent, provider, memories } = await agentWithMemory([
      [
        { type: 'text_delta', text: 'Green tea ' },
        { type: 'wait', until: release.promise },
        ...reply.text('suits you.'),
      ],
      reply.text('{"memories":[{"content":"likes green tea","tags":["taste"]}]}'),
    ]);
    const session = await agent.newSession();
    const turn = await session.sendMessage('I like tea. Which kind?');
    await firstEvent(turn.events, 'text_delta');

    const closing = session.close();
    release.resolve();
    await closing;

    expect((await turn.result).status).toBe('completed');
    const transcript = JSON.stringify(provider.requests[1]!.messages);
    expect(provider.requests[1]!.purpose).toBe('memory_extraction');
    expect(transcript).toContain('Green tea suits you.');
    expect(await memories.search(NAMESPACE, '', 10)).toEqual([
      expect.objectContaining({ content: 'likes green tea', tags: ['taste'], sourceSessionId: session.id }),
    ]);
    await agent.shutdown();
  });

  const failures: [string, ScriptStep][] = [
    ['an answer that is not JSON', reply.text('I would rather not say.')],
    ['JSON of the wrong shape', reply.text('{"memory":"likes tea"}')],
    ['a provider that throws', reply.error(new Error('connection reset'))],
  ];

  it.each(failures)(
    'reports a failed extraction (%s) as a non-fatal MEMORY_FAILED event with turnId null, and close still resolves',
    async (_name, answer) => {
      const { agent, memories, sessionEnds } = await agentWithMemory([reply.text('Noted.'), answer]);
      const session = await agent.newSession();
      const turn = await session.sendMessage('I like tea.');
      await turn.result;
      const recorded = recordEvents(session.events);

      await session.close();

      const errors = recorded.events.filter((e) => e.payload.type === 'error');
      expect(errors).toEqual([
        expect.objectContaining({
          sessionId: session.id,
          turnId: null,
          payload: expect.objectContaining({
            fatal: false,
            error: expect.objectContaining({ code: 'MEMORY_FAILED' }),
          }),
        }),
      ]);
      expect(sessionEnds).toHaveLength(1);
      expect(recorded.completed).toBe(true);
      expect(await memories.search(NAMESPACE, '', 10)).toEqual([]);
      // The agent is free again: the failure did not wedge the close path.
      const next = await agent.newSession();
      expect(next.id).not.toBe(session.id);
      await agent.shutdown();
    },
  );

  it('counts the turns taken before a resume in session_end’s turnCount', async () => {
    const { agent, sessionEnds } = await agentWithMemory([
      reply.text('one'),
      reply.text('two'),
      reply.text('{"memories":[]}'),
      reply.text('three'),
      reply.text('{"memories":[]}'),
    ]);
    const session = await agent.newSession();
    for (const text of ['first', 'second']) await (await session.sendMessage(text)).result;
    await session.close();
    const resumed = await agent.resumeSession(session.id);
    await (
      await resumed.sendMessage('third')
    ).result;
    await resumed.close();

    expect(sessionEnds.map((p) => p.data)).toEqual([
      { reason: 'close', turnCount: 2 },
      { reason: 'close', turnCount: 3 },
    ]);
    await agent.shutdown();
  });

  it('reports a throwing session_end handler as a non-fatal HOOK_FAILED (turnId null), and still extracts and closes', async () => {
    const memories = new InMemoryMemoryStorage();
    const broken = testPlugin('broken-end', {
      session_end: () => {
        throw new Error('audit log full');
      },
    });
    const { agent } = await createTestAgent({
      script: [reply.text('Noted.'), reply.text('{"memories":[{"content":"likes tea"}]}')],
      sessionStorage: null,
      memory: { namespace: NAMESPACE },
      memoryStorage: memories,
      plugins: [broken],
    });
    const session = await agent.newSession();
    const recorded = recordEvents(session.events);
    const turn = await session.sendMessage('I like tea.');
    await turn.result;

    await session.close();

    expect(recorded.events.map((e) => [e.turnId, e.payload.type])).toEqual([
      [turn.id, 'text_delta'],
      [turn.id, 'turn_complete'],
      [null, 'error'],
    ]);
    expect(recorded.events.at(-1)!.payload).toMatchObject({
      fatal: false,
      error: { code: 'HOOK_FAILED', source: 'plugin' },
    });
    expect(recorded.completed).toBe(true);
    expect(await memories.search(NAMESPACE, '', 10)).toHaveLength(1);
    await agent.shutdown();
  });

  it('completes session.events once closed: events of the session arrive, then completion, then nothing', async () => {
    const { agent } = await agentWithMemory([
      reply.text('Hi!', { chunks: 2 }),
      extractionAnswer([], '{"memories":[]}'),
    ]);
    const session = await agent.newSession();
    const recorded = recordEvents(session.events);

    const turn = await session.sendMessage('hello');
    await turn.result;
    expect(recorded.completed).toBe(false);
    const closing = session.close();
    await closing;

    expect(recorded.completed).toBe(true);
    expect(recorded.events.map((e) => e.payload.type)).toEqual(['text_delta', 'text_delta', 'turn_complete']);
    // A subscriber that comes after the close gets completion at once.
    const late = recordEvents(session.events);
    expect(late.completed).toBe(true);
    expect(late.events).toEqual([]);
    await agent.shutdown();
  });

  it('is idempotent: concurrent and repeated close() run session_end and the extraction once', async () => {
    const { agent, provider, memories, sessionEnds } = await agentWithMemory([
      reply.text('Noted.'),
      reply.text('{"memories":[{"content":"likes tea"}]}'),
    ]);
    const session = await agent.newSession();
    await (
      await session.sendMessage('I like tea.')
    ).result;

    await Promise.all([session.close(), session.close()]);
    await session.close();

    expect(sessionEnds).toHaveLength(1);
    expect(provider.requests.map((r) => r.purpose)).toEqual(['turn', 'memory_extraction']);
    expect(await memories.search(NAMESPACE, '', 10)).toHaveLength(1);
    await agent.shutdown();
  });
});
