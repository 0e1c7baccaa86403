import { describe, expect, it } from 'vitest';
import { ContextManager, microCompact, recentSplitIndex } from '../../src/context/context-manager.js';
import { clearedToolResult } from '../../src/prompt/templates.js';
import { compactionThreshold, IMAGE_CHARS, messageChars } from '../../src/context/token-estimate.js';
import type { Message } from '../../src/types.js';

const defaults = { thresholdRatio: 0.8, reservedOutputTokens: 20_000, bufferTokens: 13_000 };
const user = (text: string): Message => ({ type: 'user', content: [{ type: 'text', text }] });
const assistant = (text: string): Message => ({
  type: 'assistant',
  content: [{ type: 'text', text }],
  status: 'complete',
});
const callMsg = (id: string): Message => ({
  type: 'tool_call',
  callId: id,
  toolName: 'read',
  arguments: { path: id },
});
const result = (id: string, content: string): Message => ({
  type: 'tool_result',
  callId: id,
  content,
  isError: false,
});

describe('compaction threshold', () => {
  it.each([
    [2_000, 1_300],
    [128_000, 95_200], // documented, rounded, as "95k"
    [200_000, 160_000],
  ])('a %i-token window compacts above %i tokens', (window, expected) => {
    expect(compactionThreshold(window, defaults)).toBe(expected);
  });
});

describe('token estimate', () => {
  it('counts characters / 4 of prompt, tools and messages; images at a fixed cost', () => {
    const ctx = new ContextManager([
      user('a'.repeat(40)),
      { type: 'user', content: [{ type: 'image', data: 'x'.repeat(99_999), mediaType: 'image/png' }] },
    ]);
    expect(messageChars(ctx.messages[1]!)).toBe(IMAGE_CHARS);
    expect(ctx.estimateTokens(400, 80)).toBe(Math.ceil((40 + IMAGE_CHARS + 400 + 80) / 4));
  });

  it('starts from the usage the provider reported, plus what was appended since', () => {
    const ctx = new ContextManager([user('hello'), assistant('hi')]);
    ctx.recordUsage({ inputTokens: 900, outputTokens: 100, totalTokens: 1_000 });
    ctx.push(user('x'.repeat(400)));
    expect(ctx.estimateTokens(1_000_000, 1_000_000)).toBe(1_000 + 100);
    ctx.replace([user('fresh')]); // a compaction invalidates the baseline
    expect(ctx.estimateTokens(0, 0)).toBe(Math.ceil(5 / 4));
  });
});

describe('micro-compaction', () => {
  it('clears all but the latest N tool results and keeps every call paired with its result', () => {
    const long = 'r'.repeat(500);
    const history = [
      user('go'),
      assistant(''),
      callMsg('1'),
      callMsg('2'),
      result('1', long),
      result('2', long),
      assistant(''),
      callMsg('3'),
      result('3', long),
    ];
    const { messages, cleared } = microCompact(history, 2);
    expect(cleared).toBe(1);
    expect(messages[4]).toEqual(result('1', clearedToolResult(500)));
    expect(messages[5]).toEqual(result('2', long));
    expect(messages[8]).toEqual(result('3', long));
    expect(messages.filter((m) => m.type === 'tool_call')).toHaveLength(3);
    expect(messages.filter((m) => m.type === 'tool_result')).toHaveLength(3);
  });

  it('leaves short results alone (a placeholder would not save anything)', () => {
    const { cleared } = microCompact([callMsg('1'), result('1', 'ok'), callMsg('2'), result('2', 'ok')], 0);
    expect(cleared).toBe(0);
  });
});

describe('summary split', () => {
  it('never starts the kept part between a tool call and its result', () => {
    const history = [
      user('a'.repeat(4_000)),
      assistant(''),
      callMsg('1'),
      result('1', 'b'.repeat(40)),
      assistant('done'),
      user('next'),
    ];
    // A budget that fits the tool result (10 tokens) but not its call (4 more).
    const split = recentSplitIndex(history, 13);
    expect(['user', 'assistant', 'system']).toContain(history[split]!.type);
    const kept = history.slice(split);
    for (const m of kept)
      if (m.type === 'tool_result')
        expect(kept.some((k) => k.type === 'tool_call' && k.callId === m.callId)).toBe(true);
    expect(split).toBe(4);
  });

  it('keeps everything when it fits the budget (nothing to summarize)', () => {
    expect(recentSplitIndex([user('a'), assistant('b')], 1_000)).toBe(0);
  });
});
