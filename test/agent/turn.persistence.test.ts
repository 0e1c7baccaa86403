import { describe, expect, it } from 'vitest';
import { InMemorySessionStorage, type SessionEvent, type SessionStorage } from '../../src/index.js';
import { reply } from '../../src/testing/index.js';
import { createTestAgent, recordingTool } from '../support/agent.js';
import { eventsOf, firstEvent } from '../support/events.js';
import { deferred, promiseJobsRun } from '../support/waits.js';

/** A storage whose writes can be held, failed, and observed. */
class ControlledStorage extends InMemorySessionStorage implements SessionStorage {
  failNext = 0;
  hold: Promise<void> | null = null;
  readonly written: string[] = [];
  override async saveEvent(sessionId: string, event: SessionEvent): Promise<void> {
    if (this.failNext > 0) {
      this.failNext--;
      throw new Error('quota exceeded');
    }
    if (this.hold) await this.hold;
    const p = event.payload;
    this.written.push(p.type === 'metadata' ? `metadata:${p.key}` : p.type);
    return super.saveEvent(sessionId, event);
  }
}

describe('persistence and resume', () => {
  it('saves the config first and each message as it is appended (the user message before the model is called)', async () => {
    const storage = new ControlledStorage();
    let seenAtRequest: string[] = [];
    const { agent } = await createTestAgent({
      sessionStorage: storage,
      tools: [recordingTool('echo').tool],
      script: [
        () => {
          seenAtRequest = [...storage.written];
          return reply.toolCalls([{ name: 'echo', arguments: { text: 'a' } }]);
        },
        reply.text('done'),
      ],
    });
    const session = await agent.newSession();
    await (
      await session.sendMessage('hi')
    ).result;
    expect(seenAtRequest).toEqual(['metadata:session_config', 'metadata:turn_started', 'user_message']);
    expect(storage.written).toEqual([
      'metadata:session_config',
      'metadata:turn_started',
      'user_message',
      'assistant_message',
      'tool_call',
      'tool_result',
      'assistant_message',
      'metadata:turn_ended',
    ]);
    const stored = await storage.loadSession(session.id);
    expect(stored![0]!.payload).toEqual({
      type: 'metadata',
      key: 'session_config',
      value: { modelId: 'scripted-model' },
    });
    await agent.shutdown();
  });

  it('resolves turn.result only once every write of the turn is durable', async () => {
    const storage = new ControlledStorage();
    const g = deferred();
    const { agent } = await createTestAgent({ sessionStorage: storage, script: [reply.text('answer')] });
    const session = await agent.newSession();
    storage.hold = g.promise;
    const turn = await session.sendMessage('hi');
    let settled = false;
    let writtenAtResult: string[] = [];
    let writtenAtTerminal: string[] = [];
    void turn.result.then(() => {
      settled = true;
      writtenAtResult = [...storage.written];
    });
    const seen: string[] = [];
    turn.events.subscribe((e) => {
      seen.push(e.payload.type);
      if (e.payload.type === 'turn_complete') writtenAtTerminal = [...storage.written];
    });
    await firstEvent(turn.events, 'text_delta');
    await promiseJobsRun();
    // The answer streamed, but the user message is not durable yet: no terminal event, no result.
    expect(seen).toEqual(['text_delta']);
    expect(settled).toBe(false);
    expect(storage.written).toEqual(['metadata:session_config']);
    g.resolve();
    await turn.result;
    const all = [
      'metadata:session_config',
      'metadata:turn_started',
      'user_message',
      'assistant_message',
      'metadata:turn_ended',
    ];
    expect(storage.written).toEqual(all);
    // Both the terminal event and the result came once every write had landed.
    expect(writtenAtTerminal).toEqual(all);
    expect(writtenAtResult).toEqual(all);
    await agent.shutdown();
  });

  it('reports a failed write as a non-fatal STORAGE_ERROR and goes on in memory', async () => {
    const storage = new ControlledStorage();
    const { agent } = await createTestAgent({
      sessionStorage: storage,
      script: [reply.text('one'), reply.text('two')],
    });
    const session = await agent.newSession();
    storage.failNext = 1;
    const turn = await session.sendMessage('hi');
    const events = await eventsOf(turn);
    expect(events.find((e) => e.payload.type === 'error')!.payload).toMatchObject({
      fatal: false,
      error: { code: 'STORAGE_ERROR', source: 'storage' },
    });
    expect((await turn.result).status).toBe('completed');
    expect((await (await session.sendMessage('again')).result).status).toBe('completed');
    expect(session.messages).toHaveLength(4);
    await agent.shutdown();
  });

  it('resumes with the same messages, config and turn count after tool rounds', async () => {
    const storage = new InMemorySessionStorage();
    const { agent, provider } = await createTestAgent({
      sessionStorage: storage,
      tools: [recordingTool('echo').tool],
      script: [
        reply.toolCalls([
          { name: 'echo', arguments: { text: 'a' } },
          { name: 'echo', arguments: '{bad' },
        ]),
        reply.text('first'),
        reply.text('second'),
        reply.text('after resume'),
      ],
    });
    const session = await agent.newSession({ systemPromptOverride: 'Be terse.' });
    await (
      await session.sendMessage('one')
    ).result;
    await (
      await session.sendMessage('two')
    ).result;
    const live = [...session.messages];
    await session.close();
    const resumed = await agent.resumeSession(session.id);
    expect(resumed.messages).toEqual(live);
    expect(resumed.modelId).toBe('scripted-model');
    await (
      await resumed.sendMessage('three')
    ).result;
    expect(provider.requests.at(-1)!.systemPrompt).toContain('Be terse.');
    const summary = (await storage.listSessions(null, 10)).sessions[0]!;
    expect(summary).toMatchObject({ id: session.id, turnCount: 3, title: 'one', modelId: 'scripted-model' });
    await agent.shutdown();
  });

  it('resumes from the last context snapshot after a compaction', async () => {
    const { agent } = await createTestAgent({
      config: {
        compaction: { reservedOutputTokens: 0, bufferTokens: 0, thresholdRatio: 0.01, keepRecentRatio: 0.01 },
      },
      script: [
        reply.text('x'.repeat(8_000)),
        reply.text('summary of the start', { usage: { inputTokens: 100, outputTokens: 10 } }),
        reply.text('ok', { usage: { inputTokens: 5, outputTokens: 1 } }),
      ],
    });
    const session = await agent.newSession();
    await (
      await session.sendMessage('one')
    ).result;
    const turn = await session.sendMessage('two');
    const events = await eventsOf(turn);
    expect(events.find((e) => e.payload.type === 'context_compacted')!.payload).toMatchObject({
      strategy: 'summary',
    });
    // The summary's usage is reported and counts in the turn's usage.
    expect(events.filter((e) => e.payload.type === 'usage')).toHaveLength(2);
    expect((await turn.result).usage).toEqual({ inputTokens: 105, outputTokens: 11, totalTokens: 116 });
    expect(session.messages[0]).toMatchObject({ type: 'system' });
    expect((session.messages[0] as { content: string }).content).toContain('summary of the start');
    const live = [...session.messages];
    await session.close();
    const resumed = await agent.resumeSession(session.id);
    expect(resumed.messages).toEqual(live);
    await agent.shutdown();
  });
});
