/**
 * The two corruptions of this round, written against the API that existed before it: a reload
 * during a tool call, and two tabs sending into one session.
 */
import { describe, expect, it } from 'vitest';
import { InMemorySessionStorage } from '../../src/index.js';
import { reply } from '../../src/testing/index.js';
import { createTestAgent, hangingTool, recordingTool } from '../support/agent.js';
import { storedAfterClose, toolPairingProblems } from '../support/history.js';

describe('regressions', () => {
  it('a reload during a tool call: the next request pairs every call with a result', async () => {
    const slow = hangingTool('act');
    const first = await createTestAgent({
      tools: [slow.tool],
      script: [reply.toolCalls([{ name: 'act', arguments: { text: 'x' }, callId: 'c1' }])],
    });
    const session = await first.agent.newSession();
    await session.sendMessage('do it');
    await slow.running;
    const storage = await storedAfterClose(first.sessionStorage!, session.id);
    const second = await createTestAgent({
      tools: [recordingTool('act').tool],
      sessionStorage: storage,
      script: [reply.text('ok')],
    });
    const resumed = await second.agent.resumeSession(session.id);
    await (
      await resumed.sendMessage('next')
    ).result;
    expect(toolPairingProblems(second.provider.requests[0]!.messages)).toEqual([]);
  });

  it('two tabs send into one session at once: the stored history does not interleave', async () => {
    const storage = new InMemorySessionStorage();
    const a = await createTestAgent({
      sessionStorage: storage,
      script: [reply.text('A1'), reply.text('A2')],
    });
    const b = await createTestAgent({ sessionStorage: storage, script: [reply.text('B2')] });
    const sa = await a.agent.newSession();
    await (
      await sa.sendMessage('first (A)')
    ).result;
    const sb = await b.agent.resumeSession(sa.id);
    const [ta, tb] = await Promise.all([sa.sendMessage('second (A)'), sb.sendMessage('second (B)')]);
    await Promise.all([ta.result, tb.result]);
    await Promise.all([sa.close(), sb.close()]);
    const types = ((await storage.loadSession(sa.id)) ?? [])
      .map((e) => e.payload.type)
      .filter((t) => t === 'user_message' || t === 'assistant_message');
    // Every user message is followed by its own answer: never two user messages in a row. (One
    // of the two second turns is refused: its writer was replaced.)
    expect(types).toEqual(['user_message', 'assistant_message', 'user_message', 'assistant_message']);
  });
});
