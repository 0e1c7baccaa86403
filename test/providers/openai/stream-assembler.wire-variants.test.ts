/**
 * The wire variants the peer recordings showed, on `ChatStreamAssembler` directly: Mistral's
 * array-form `content`, `[DONE]` without a finish reason, and the usage fields of xAI, Groq,
 * Together and Azure AI Foundry. Replayed whole over HTTP in openai-provider.peer-streams.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { AgentError } from '../../../src/errors.js';
import {
  ChatStreamAssembler,
  toTokenUsage,
  type WireChunk,
  type WireUsage,
} from '../../../src/providers/openai/stream-assembler.js';
import type { ChatEvent } from '../../../src/types.js';

const parts = (content: unknown, finish: string | null = null): WireChunk => ({
  choices: [{ index: 0, delta: { content } as never, finish_reason: finish }],
});

function run(chunks: WireChunk[], endMarkerSeen = false): ChatEvent[] {
  const assembler = new ChatStreamAssembler({ providerId: 'p' });
  const events = chunks.flatMap((c) => [...assembler.push(c)]);
  return [...events, ...assembler.finish(endMarkerSeen)];
}

function usageOf(usage: WireUsage): ChatEvent | undefined {
  return run([{ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], usage }]).find(
    (e) => e.type === 'usage',
  );
}

describe('array-form content (Mistral magistral)', () => {
  it('emits text parts as text and thinking parts as reasoning, in their order', () => {
    const thinking = (...texts: string[]) => ({
      type: 'thinking',
      thinking: texts.map((text) => ({ type: 'text', text })),
    });
    expect(
      run([
        parts([thinking('Two', ' plus two.')]),
        parts([thinking(' Four.'), { type: 'text', text: '2 + 2' }]),
        parts([{ type: 'text', text: ' = 4' }]),
        parts('', 'stop'),
      ]),
    ).toEqual([
      { type: 'reasoning_delta', text: 'Two plus two.' },
      { type: 'reasoning_delta', text: ' Four.' },
      { type: 'text_delta', text: '2 + 2' },
      { type: 'text_delta', text: ' = 4' },
      { type: 'done', finishReason: 'stop' },
    ]);
  });

  it('skips empty thinking, empty text, other part types and malformed parts', () => {
    expect(
      run([
        parts([
          { type: 'thinking', thinking: [] },
          {
            type: 'thinking',
            thinking: [
              { type: 'text', text: '' },
              { type: 'image', url: 'x' },
            ],
          },
          { type: 'text', text: '' },
          { type: 'reference', reference_ids: [1] },
          { type: 'text', text: 42 },
          null,
          'loose string',
        ]),
        parts([{ type: 'thinking', thinking: 'as a plain string' }], 'stop'),
      ]),
    ).toEqual([
      { type: 'reasoning_delta', text: 'as a plain string' },
      { type: 'done', finishReason: 'stop' },
    ]);
  });
});

describe('the end of a stream without a finish reason', () => {
  it('after [DONE]: stop, or tool_calls when there are tool calls', () => {
    expect(run([parts('Hi')], true)).toEqual([
      { type: 'text_delta', text: 'Hi' },
      { type: 'done', finishReason: 'stop' },
    ]);
    const call = {
      choices: [
        {
          index: 0,
          delta: { tool_calls: [{ index: 0, id: 'c1', function: { name: 'f', arguments: '{}' } }] },
        },
      ],
    };
    expect(run([call], true)).toEqual([
      { type: 'tool_call_delta', index: 0, callId: 'c1', toolName: 'f', argumentsDelta: '{}' },
      { type: 'tool_call', callId: 'c1', toolName: 'f', arguments: '{}' },
      { type: 'done', finishReason: 'tool_calls' },
    ]);
  });

  it('a finish reason that arrived wins over the inferred one', () => {
    expect(run([parts('Hi', 'length')], true).at(-1)).toEqual({ type: 'done', finishReason: 'length' });
  });

  it('without [DONE] it is a retryable error', () => {
    const assembler = new ChatStreamAssembler({ providerId: 'p' });
    assembler.push(parts('Hi'));
    let error: unknown;
    try {
      assembler.finish(false);
    } catch (e) {
      error = e;
    }
    expect(AgentError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: 'PROVIDER_ERROR', retryable: true });
  });
});

describe('usage variants', () => {
  it('xAI counts reasoning apart from completion: output is completion + reasoning, so the counts add up', () => {
    expect(
      toTokenUsage({
        prompt_tokens: 12,
        completion_tokens: 2,
        total_tokens: 354,
        prompt_tokens_details: { cached_tokens: 11 },
        completion_tokens_details: { reasoning_tokens: 340 },
      }),
    ).toEqual({
      inputTokens: 12,
      outputTokens: 342,
      totalTokens: 354,
      cachedInputTokens: 11,
      reasoningTokens: 340,
    });
  });

  it('leaves output alone when the total already adds up (reasoning inside completion, as OpenAI counts)', () => {
    expect(
      toTokenUsage({
        prompt_tokens: 24,
        completion_tokens: 1355,
        total_tokens: 1379,
        completion_tokens_details: { reasoning_tokens: 1084 },
      }),
    ).toEqual({ inputTokens: 24, outputTokens: 1355, totalTokens: 1379, reasoningTokens: 1084 });
    // A total that fits neither reading is kept as sent, output as sent.
    expect(
      toTokenUsage({
        prompt_tokens: 10,
        completion_tokens: 5,
        total_tokens: 99,
        completion_tokens_details: { reasoning_tokens: 3 },
      }),
    ).toEqual({ inputTokens: 10, outputTokens: 5, totalTokens: 99, reasoningTokens: 3 });
  });

  it('reads the top-level cached_tokens (Together) and reasoning_tokens (Azure AI Foundry)', () => {
    expect(
      toTokenUsage({
        prompt_tokens: 10,
        completion_tokens: 5,
        total_tokens: 15,
        cached_tokens: 4,
        reasoning_tokens: 2,
      }),
    ).toEqual({
      inputTokens: 10,
      outputTokens: 5,
      totalTokens: 15,
      cachedInputTokens: 4,
      reasoningTokens: 2,
    });
  });

  it("xAI's cost_in_usd_ticks is the cost, at 10^10 ticks per USD; OpenRouter's usage.cost wins over it", () => {
    const base = { prompt_tokens: 12, completion_tokens: 2, total_tokens: 14 };
    expect(usageOf({ ...base, cost_in_usd_ticks: 1_721_250 })).toMatchObject({ cost: 0.000172125 });
    expect(usageOf({ ...base, cost: 0.5, cost_in_usd_ticks: 1_721_250 })).toMatchObject({ cost: 0.5 });
    expect(usageOf({ ...base, cost_in_usd_ticks: -1 })).not.toHaveProperty('cost');
  });

  it("reads Groq's x_groq.usage when the chunk has no usage of its own", () => {
    const chunk = {
      choices: [{ index: 0, delta: {}, finish_reason: 'stop' }],
      x_groq: { usage: { prompt_tokens: 21, completion_tokens: 988, total_tokens: 1009 } },
    };
    expect(run([chunk]).find((e) => e.type === 'usage')).toEqual({
      type: 'usage',
      usage: { inputTokens: 21, outputTokens: 988, totalTokens: 1009 },
    });
    // Top-level usage on the same chunk is the one taken.
    const both = { ...chunk, usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } };
    expect(run([both]).find((e) => e.type === 'usage')).toMatchObject({ usage: { totalTokens: 2 } });
  });
});
