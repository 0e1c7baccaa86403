/**
 * The lifecycle guards, through the public API: one session per agent (SESSION_BUSY until the
 * closed session's turn has ended), one turn per session (TURN_BUSY), no turn after close
 * (SESSION_CLOSED), unknown sessions and models, and bad input — each rejection an `AgentError`
 * with a code, and none of them breaking the session that is open.
 */
import { describe, expect, it } from 'vitest';
import type { AgentEvent, RunningTurn, UserInput } from '../../src/index.js';
import { reply, type ScriptedResponse } from '../../src/testing/index.js';
import { createTestAgent } from '../support/agent.js';
import { expectAgentError } from '../support/errors.js';
import { firstEvent } from '../support/events.js';
import { deferred } from '../support/waits.js';

/** A response that streams one delta, then holds the stream open until `until` settles. */
function heldOpen(until: Promise<void>): ScriptedResponse {
  return [{ type: 'text_delta', text: 'Hel' }, { type: 'wait', until }, ...reply.text('lo')];
}

/** Resolves once the turn has streamed its first text delta (it is then mid-stream). */
function midStream(turn: RunningTurn): Promise<AgentEvent> {
  return firstEvent(turn.events, 'text_delta');
}

describe('the single-session guard', () => {
  it('rejects a second newSession with SESSION_BUSY while a session is open, and the open one still works', async () => {
    const { agent } = await createTestAgent({ script: [reply.text('still here')] });
    const session = await agent.newSession();

    await expectAgentError(agent.newSession(), 'SESSION_BUSY');
    await expectAgentError(agent.resumeSession(session.id), 'SESSION_BUSY');

    const turn = await session.sendMessage('are you there?');
    expect((await turn.result).status).toBe('completed');
    await agent.shutdown();
  });

  it('keeps the slot busy after close() while its turn runs (close waits for the turn), and frees it once close resolves', async () => {
    const release = deferred();
    const { agent } = await createTestAgent({
      script: [heldOpen(release.promise), reply.text('next session')],
    });
    const session = await agent.newSession();
    const turn = await session.sendMessage('hello');
    await midStream(turn);

    const order: string[] = [];
    void turn.result.then((r) => order.push(`turn ${r.status}`));
    const closing = session.close().then(() => order.push('closed'));

    await expectAgentError(agent.newSession(), 'SESSION_BUSY');
    await expectAgentError(session.sendMessage('too late'), 'SESSION_CLOSED');
    expect(order).toEqual([]);

    release.resolve();
    await closing;
    // close() did not cancel the turn: it waited for it to complete.
    expect(order).toEqual(['turn completed', 'closed']);

    const next = await agent.newSession();
    expect(next.id).not.toBe(session.id);
    const nextTurn = await next.sendMessage('hi again');
    expect((await nextTurn.result).status).toBe('completed');
    await agent.shutdown();
  });

  it('lets only one of two concurrent newSession calls through; the other rejects with SESSION_BUSY', async () => {
    const { agent } = await createTestAgent();
    const outcomes = await Promise.allSettled([agent.newSession(), agent.newSession()]);
    expect(outcomes.map((o) => o.status).sort()).toEqual(['fulfilled', 'rejected']);
    const rejected = outcomes.find((o) => o.status === 'rejected')!;
    await expectAgentError(Promise.reject(rejected.reason), 'SESSION_BUSY');
    await agent.shutdown();
  });

  it('frees the slot right after close() resolves on an idle session', async () => {
    const { agent } = await createTestAgent();
    const first = await agent.newSession();
    await first.close();
    const second = await agent.newSession();
    expect(second.id).not.toBe(first.id);
    await agent.shutdown();
  });
});

describe('the single-turn guard', () => {
  it('rejects sendMessage with TURN_BUSY while a turn runs, and accepts one once it has ended', async () => {
    const release = deferred();
    const { agent } = await createTestAgent({ script: [heldOpen(release.promise), reply.text('second')] });
    const session = await agent.newSession();
    const turn = await session.sendMessage('first');
    await midStream(turn);

    await expectAgentError(session.sendMessage('second'), 'TURN_BUSY');

    release.resolve();
    expect((await turn.result).status).toBe('completed');
    const second = await session.sendMessage('second');
    expect((await second.result).status).toBe('completed');
    // The rejected message never entered the history.
    expect(session.messages.filter((m) => m.type === 'user')).toHaveLength(2);
    await agent.shutdown();
  });

  it('lets only one of two concurrent sendMessage calls start a turn; the other rejects with TURN_BUSY', async () => {
    const { agent, provider } = await createTestAgent({ script: [reply.text('one answer')] });
    const session = await agent.newSession();
    const outcomes = await Promise.allSettled([session.sendMessage('a'), session.sendMessage('b')]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected']);
    await expectAgentError(Promise.reject((outcomes[1] as PromiseRejectedResult).reason), 'TURN_BUSY');
    expect((await (outcomes[0] as PromiseFulfilledResult<RunningTurn>).value.result).status).toBe(
      'completed',
    );
    expect(provider.calls).toBe(1);
    await agent.shutdown();
  });

  it('rejects sendMessage with SESSION_CLOSED after close()', async () => {
    const { agent } = await createTestAgent();
    const session = await agent.newSession();
    await session.close();
    await expectAgentError(session.sendMessage('anyone?'), 'SESSION_CLOSED');
    await agent.shutdown();
  });
});

describe('opening sessions', () => {
  it('rejects resumeSession of an unknown id with SESSION_NOT_FOUND, and the slot stays free', async () => {
    const { agent } = await createTestAgent();
    await expectAgentError(agent.resumeSession('no-such-session'), 'SESSION_NOT_FOUND');
    const session = await agent.newSession();
    expect(session.id).not.toBe('no-such-session');
    await agent.shutdown();
  });

  it('rejects resumeSession with SESSION_NOT_FOUND when no SessionStorage is registered', async () => {
    const { agent } = await createTestAgent({ sessionStorage: null });
    const session = await agent.newSession();
    await session.close();
    await expectAgentError(agent.resumeSession(session.id), 'SESSION_NOT_FOUND');
    await agent.shutdown();
  });

  it('rejects newSession with MODEL_NOT_SUPPORTED for a model no provider serves, and the slot stays free', async () => {
    const { agent } = await createTestAgent();
    await expectAgentError(agent.newSession({ modelId: 'nope' }), 'MODEL_NOT_SUPPORTED');
    const session = await agent.newSession();
    expect(session.id).toEqual(expect.any(String));
    await agent.shutdown();
  });
});

describe('bad input to sendMessage', () => {
  const badInputs: [string, unknown][] = [
    ['no content blocks', { content: [] }],
    ['a number', 42],
    ['an empty string', ''],
    ['only whitespace', '   '],
    ['a block of an unknown type', { content: [{ type: 'video', url: 'x' }] }],
  ];

  it.each(badInputs)(
    'rejects %s with INVALID_INPUT; the session still works afterwards',
    async (_name, input) => {
      const { agent, provider } = await createTestAgent({ script: [reply.text('fine')] });
      const session = await agent.newSession();

      await expectAgentError(session.sendMessage(input as UserInput), 'INVALID_INPUT');
      expect(session.messages).toEqual([]);
      expect(provider.calls).toBe(0);

      const turn = await session.sendMessage('a real question');
      expect(await turn.result).toMatchObject({ status: 'completed' });
      expect(session.messages).toEqual([
        { type: 'user', content: [{ type: 'text', text: 'a real question' }] },
        { type: 'assistant', content: [{ type: 'text', text: 'fine' }], status: 'complete' },
      ]);
      await agent.shutdown();
    },
  );
});
