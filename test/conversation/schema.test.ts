/**
 * `ConversationSchema` and `ConversationItemSchema` describe what `session.conversation` emits:
 * every state of a turn with streaming, tools, a cancel and notices parses, strictly; values
 * outside the contract do not.
 */
import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { ConversationItemSchema, ConversationSchema, type Conversation } from '../../src/index.js';
import { reply } from '../../src/testing/index.js';
import { createTestAgent, recordingTool } from '../support/agent.js';
import { deferred } from '../support/waits.js';
import { record } from './support.js';

const state: Conversation = {
  items: [],
  turn: null,
  usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
  cost: null,
  context: { estimatedTokens: 10, contextWindow: 100, compactAt: 80 },
};

describe('the conversation schemas', () => {
  it('accept every state a session emits', async () => {
    const echo = recordingTool('echo');
    const held = deferred();
    const { agent } = await createTestAgent({
      tools: [echo.tool],
      config: { retry: { initialDelayMs: 0 } },
      script: [
        reply.toolCalls([{ name: 'echo', arguments: { text: 'a' } }], {
          reasoning: 'think',
          usage: { inputTokens: 4, outputTokens: 2 },
          cost: 0.01,
        }),
        reply.text('done', { chunks: 2 }),
        [
          { type: 'text_delta', text: 'cut' },
          { type: 'wait', until: held.promise },
          { type: 'done', finishReason: 'stop' },
        ],
      ],
    });
    const session = await agent.newSession();
    const recorder = record(session);
    await (
      await session.sendMessage('one')
    ).result;
    const second = await session.sendMessage('two');
    await new Promise<void>((resolve) =>
      session.conversation.subscribe((s) => {
        const last = s.items.at(-1);
        if (last?.kind === 'assistant' && last.status === 'streaming') resolve();
      }),
    );
    second.cancel();
    await second.result;
    const kinds = new Set(recorder.states.flatMap((s) => s.items.map((i) => i.kind)));
    expect([...kinds].sort()).toEqual(['assistant', 'notice', 'tool', 'user']);
    for (const emitted of recorder.states) {
      expect(z.safeParse(ConversationSchema, emitted).error?.issues ?? []).toEqual([]);
    }
    held.resolve();
    await agent.shutdown();
  });

  it('reject values outside the contract', () => {
    const bad: [string, unknown][] = [
      ['an unknown key', { ...state, extra: 1 }],
      ['a negative estimate', { ...state, context: { ...state.context, estimatedTokens: -1 } }],
      ['a turn status that does not exist', { ...state, turn: { id: 't', status: 'done' } }],
      ['a missing cost', { ...state, cost: undefined }],
    ];
    for (const [what, value] of bad) expect(z.safeParse(ConversationSchema, value).success, what).toBe(false);
    const badItems: [string, unknown][] = [
      ['an unknown kind', { kind: 'system', id: 'x', text: 't' }],
      ['an assistant without reasoning', { kind: 'assistant', id: 'x', text: 't', status: 'complete' }],
      [
        'a tool status that does not exist',
        { kind: 'tool', callId: 'c', toolName: 't', arguments: {}, status: 'queued' },
      ],
      ['a notice level that does not exist', { kind: 'notice', id: 'x', level: 'debug', text: 't' }],
    ];
    for (const [what, value] of badItems) {
      expect(z.safeParse(ConversationItemSchema, value).success, what).toBe(false);
    }
  });
});
