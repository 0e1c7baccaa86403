/**
 * The `agent.shutdown()` path of the session lifecycle: a running turn is cancelled, the session's
 * full close path runs (`session_end` with reason `shutdown`, memory extraction), then the
 * plugins' `shutdown()` in reverse registration order. Idempotent; the agent opens nothing after.
 */
import { describe, expect, it } from 'vitest';
import { InMemoryMemoryStorage, type Plugin, type RunningTurn } from '../../src/index.js';
import { reply, type ScriptStep } from '../../src/testing/index.js';
import { createTestAgent, testPlugin } from '../support/agent.js';
import { expectAgentError } from '../support/errors.js';
import { eventsOf, firstEvent, recordEvents } from '../support/events.js';
import { deferred } from '../support/waits.js';

const NAMESPACE = 'user-1';

/** A plugin that logs its turn_end and session_end hooks and its shutdown into `log`. */
function loggingPlugin(id: string, log: string[], options: { failShutdown?: boolean } = {}): Plugin {
  return testPlugin(
    id,
    {
      turn_end: ({ data }) => void log.push(`turn_end ${id} ${data.status}`),
      session_end: ({ data }) => void log.push(`session_end ${id} ${data.reason} turns=${data.turnCount}`),
    },
    {
      shutdown() {
        log.push(`shutdown ${id}`);
        if (options.failShutdown) throw new Error(`${id} could not flush`);
      },
    },
  );
}

/** An agent with memory, storage, and plugins A, B, C (in that registration order). */
async function agentWithPlugins(script: ScriptStep[], log: string[], failing: string[] = []) {
  const memories = new InMemoryMemoryStorage();
  const { agent, provider } = await createTestAgent({
    script,
    memory: { namespace: NAMESPACE },
    memoryStorage: memories,
    plugins: ['A', 'B', 'C'].map((id) => loggingPlugin(id, log, { failShutdown: failing.includes(id) })),
  });
  return { agent, provider, memories };
}

/** A response that streams one delta and then never ends on its own. */
const endless: ScriptStep = [
  { type: 'text_delta', text: 'Let me' },
  { type: 'wait', until: new Promise<void>(() => {}) },
];

/** A script step answering the extraction request, logging it. */
function extraction(log: string[]): ScriptStep {
  return (request) => {
    log.push(`model ${request.purpose}`);
    return reply.text('{"memories":[{"content":"likes tea"}]}');
  };
}

/** What shutdown logs once no turn runs: the session's close path, then the plugins in reverse order. */
const closeThenShutdown = [
  'session_end A shutdown turns=1',
  'session_end B shutdown turns=1',
  'session_end C shutdown turns=1',
  'model memory_extraction',
  'shutdown C',
  'shutdown B',
  'shutdown A',
];

function midStream(turn: RunningTurn): Promise<unknown> {
  return firstEvent(turn.events, 'text_delta');
}

describe('agent.shutdown()', () => {
  it('cancels a turn mid-stream, runs session_end (shutdown) and extraction, then plugins shut down in reverse order', async () => {
    const log: string[] = [];
    const { agent, provider, memories } = await agentWithPlugins([endless, extraction(log)], log);
    const session = await agent.newSession();
    const sessionEvents = recordEvents(session.events);
    const turn = await session.sendMessage('I like tea. Tell me a story.');
    await midStream(turn);

    await agent.shutdown();

    expect(log).toEqual([
      'turn_end A cancelled',
      'turn_end B cancelled',
      'turn_end C cancelled',
      ...closeThenShutdown,
    ]);
    expect((await turn.result).status).toBe('cancelled');
    expect(provider.aborted).toBe(1);
    const turnEvents = await eventsOf(turn);
    expect(turnEvents.map((e) => e.payload.type)).toEqual(['text_delta', 'turn_cancelled']);
    // The session's stream completed and held the turn's events.
    expect(sessionEvents.completed).toBe(true);
    expect(sessionEvents.events.map((e) => e.payload.type)).toEqual(['text_delta', 'turn_cancelled']);
    expect(await memories.search(NAMESPACE, '', 10)).toEqual([
      expect.objectContaining({ content: 'likes tea' }),
    ]);
  });

  it('with an idle session: session_end (shutdown) then plugins in reverse order; with no session: plugins only', async () => {
    const log: string[] = [];
    const { agent } = await agentWithPlugins([reply.text('Hi.'), extraction(log)], log);
    const session = await agent.newSession();
    await (
      await session.sendMessage('hello')
    ).result;
    log.length = 0;

    await agent.shutdown();
    expect(log).toEqual(closeThenShutdown);

    const bare: string[] = [];
    const { agent: idleAgent } = await agentWithPlugins([], bare);
    await idleAgent.shutdown();
    expect(bare).toEqual(['shutdown C', 'shutdown B', 'shutdown A']);
  });

  it('is idempotent: concurrent and repeated calls resolve and run each step once', async () => {
    const log: string[] = [];
    const { agent } = await agentWithPlugins([endless, extraction(log)], log);
    const session = await agent.newSession();
    const turn = await session.sendMessage('hello');
    await midStream(turn);

    await Promise.all([agent.shutdown(), agent.shutdown()]);
    await agent.shutdown();

    expect(log.filter((l) => l.startsWith('session_end'))).toHaveLength(3);
    expect(log.filter((l) => l.startsWith('shutdown'))).toEqual(['shutdown C', 'shutdown B', 'shutdown A']);
    expect(log.filter((l) => l.startsWith('model'))).toHaveLength(1);
  });

  it('leaves an agent that opens no session and a session that takes no message', async () => {
    const { agent } = await agentWithPlugins([reply.text('Hi.')], []);
    const session = await agent.newSession();
    await (
      await session.sendMessage('hello')
    ).result;
    await agent.shutdown();

    await expectAgentError(agent.newSession());
    await expectAgentError(agent.resumeSession(session.id));
    await expectAgentError(session.sendMessage('still there?'), 'SESSION_CLOSED');
    // Closing a session the shutdown already closed is a no-op.
    await session.close();
  });

  it('still shuts the other plugins down when one plugin’s shutdown throws', async () => {
    const log: string[] = [];
    const { agent } = await agentWithPlugins([], log, ['B']);
    await agent.shutdown();
    expect(log).toEqual(['shutdown C', 'shutdown B', 'shutdown A']);
  });

  it('during newSession’s session_start: does not hang; the new session gets session_end (shutdown), then plugins shut down', async () => {
    const log: string[] = [];
    const slowStart = deferred();
    const slow = testPlugin(
      'slow',
      {
        session_start: async () => {
          log.push('session_start');
          await slowStart.promise;
        },
        session_end: ({ data }) => void log.push(`session_end ${data.reason}`),
      },
      { shutdown: () => void log.push('shutdown slow') },
    );
    const { agent } = await createTestAgent({ sessionStorage: null, plugins: [slow] });

    const opening = agent.newSession().then(
      () => 'resolved',
      () => 'rejected',
    );
    const down = agent.shutdown();
    slowStart.resolve();
    await down;
    await opening;

    expect(log).toEqual(['session_start', 'session_end shutdown', 'shutdown slow']);
    await expectAgentError(agent.newSession());
  });

  it('upgrades a pending close(): the turn close() was waiting for is cancelled, and session_end fires once', async () => {
    const log: string[] = [];
    const { agent } = await agentWithPlugins([endless, extraction(log)], log);
    const session = await agent.newSession();
    const turn = await session.sendMessage('hello');
    await midStream(turn);

    const closing = session.close();
    await agent.shutdown();
    await closing;

    expect((await turn.result).status).toBe('cancelled');
    expect(log.filter((l) => l.startsWith('session_end A'))).toHaveLength(1);
    expect(log.slice(-3)).toEqual(['shutdown C', 'shutdown B', 'shutdown A']);
  });
});

describe('a plugin whose shutdown() never finishes', () => {
  it('is bounded by hookTimeoutMs: agent.shutdown() resolves, the others still shut down, the failure is kept', async () => {
    const order: string[] = [];
    const { agent } = await createTestAgent({
      sessionStorage: null,
      config: { hookTimeoutMs: 20 },
      plugins: [
        testPlugin('first', {}, { shutdown: async () => void order.push('first') }),
        testPlugin('stuck', {}, { shutdown: () => new Promise<void>(() => order.push('stuck')) }),
      ],
    });
    await agent.shutdown();
    expect(order).toEqual(['stuck', 'first']);
    expect(agent.unreportedErrors.map((e) => [e.code, e.message])).toEqual([
      ['HOOK_FAILED', expect.stringContaining("plugin 'stuck' shutdown: did not finish within 20ms")],
    ]);
  });
});
