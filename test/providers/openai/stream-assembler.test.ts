import { describe, expect, it } from 'vitest';
import {
  ChatStreamAssembler,
  type WireChunk,
  type WireDelta,
} from '../../../src/providers/openai/stream-assembler.js';
import type { ChatEvent } from '../../../src/types.js';
import { expectAgentError } from '../../support/errors.js';

const delta = (d: WireDelta, finish: string | null = null): WireChunk => ({
  choices: [{ index: 0, delta: d, finish_reason: finish }],
});
const finishChunk = (reason: string): WireChunk => ({
  choices: [{ index: 0, delta: {}, finish_reason: reason }],
});

function run(
  chunks: WireChunk[],
  options: Partial<ConstructorParameters<typeof ChatStreamAssembler>[0]> = {},
): ChatEvent[] {
  const assembler = new ChatStreamAssembler({ providerId: 'p', ...options });
  const events = chunks.flatMap((c) => [...assembler.push(c)]);
  return [...events, ...assembler.finish()];
}

describe('ChatStreamAssembler', () => {
  it('emits content and refusal as text deltas, skipping empty and null pieces', () => {
    expect(
      run([
        delta({ content: '', refusal: null }),
        delta({ content: 'Hi' }),
        delta({ refusal: 'No.' }),
        finishChunk('stop'),
      ]),
    ).toEqual([
      { type: 'text_delta', text: 'Hi' },
      { type: 'text_delta', text: 'No.' },
      { type: 'done', finishReason: 'stop' },
    ]);
  });

  it('reads reasoning from reasoning_content, else reasoning, else reasoning_details, never twice', () => {
    const events = run([
      delta({ reasoning_content: 'a', reasoning: 'x' }),
      delta({ reasoning: 'b', reasoning_details: [{ type: 'reasoning.text', text: 'b' }] }),
      delta({
        reasoning: null,
        reasoning_details: [{ text: 'c' }, { type: 'reasoning.encrypted', data: '...' }, { text: 'd' }],
      }),
      delta({ reasoning_content: '', reasoning: '' }),
      finishChunk('stop'),
    ]);
    expect(events.filter((e) => e.type === 'reasoning_delta')).toEqual([
      { type: 'reasoning_delta', text: 'a' },
      { type: 'reasoning_delta', text: 'b' },
      { type: 'reasoning_delta', text: 'cd' },
    ]);
  });

  it('assembles a tool call whose id and name come once and arguments in pieces, whole at the end', () => {
    const assembler = new ChatStreamAssembler({ providerId: 'p' });
    const pieces = ['{"ci', 'ty":', '"Paris"}'];
    const during = [
      assembler.push(
        delta({ tool_calls: [{ index: 0, id: 'call_1', function: { name: 'weather', arguments: '' } }] }),
      ),
      ...pieces.map((args) =>
        assembler.push(delta({ tool_calls: [{ index: 0, function: { arguments: args } }] })),
      ),
      assembler.push(finishChunk('tool_calls')),
    ];
    // Each piece streams as a delta (the first names the call); the whole call comes at the end.
    expect(during.flat()).toEqual([
      { type: 'tool_call_delta', index: 0, callId: 'call_1', toolName: 'weather', argumentsDelta: '' },
      { type: 'tool_call_delta', index: 0, argumentsDelta: '{"ci' },
      { type: 'tool_call_delta', index: 0, argumentsDelta: 'ty":' },
      { type: 'tool_call_delta', index: 0, argumentsDelta: '"Paris"}' },
    ]);
    expect(assembler.finish()).toEqual([
      { type: 'tool_call', callId: 'call_1', toolName: 'weather', arguments: '{"city":"Paris"}' },
      { type: 'done', finishReason: 'tool_calls' },
    ]);
  });

  it('interleaved pieces of parallel calls go to their own index, in order of first appearance', () => {
    const events = run([
      delta({ tool_calls: [{ index: 1, id: 'b', function: { name: 'g', arguments: '{"y"' } }] }),
      delta({ tool_calls: [{ index: 0, id: 'a', function: { name: 'f', arguments: '{"x"' } }] }),
      delta({
        tool_calls: [
          { index: 0, function: { arguments: ':1}' } },
          { index: 1, function: { arguments: ':2}' } },
        ],
      }),
      finishChunk('tool_calls'),
    ]);
    expect(events.filter((e) => e.type === 'tool_call')).toEqual([
      { type: 'tool_call', callId: 'b', toolName: 'g', arguments: '{"y":2}' },
      { type: 'tool_call', callId: 'a', toolName: 'f', arguments: '{"x":1}' },
    ]);
  });

  it('starts a new call when a piece names another id at a taken index (Ollama reuses index 0)', () => {
    const events = run([
      delta({ tool_calls: [{ index: 0, id: 'a', function: { name: 'f', arguments: '{"n":1}' } }] }),
      delta({ tool_calls: [{ index: 0, id: 'b', function: { name: 'f', arguments: '{"n":' } }] }),
      delta({ tool_calls: [{ index: 0, function: { arguments: '2}' } }] }),
      finishChunk('tool_calls'),
    ]);
    expect(
      events
        .filter((e) => e.type === 'tool_call')
        .map((e) => e.type === 'tool_call' && [e.callId, e.arguments]),
    ).toEqual([
      ['a', '{"n":1}'],
      ['b', '{"n":2}'],
    ]);
  });

  it('continues the latest call when pieces have no index, and gives id-less calls a generated id', () => {
    const events = run(
      [
        delta({ tool_calls: [{ function: { name: 'f', arguments: '{"a":' } }] }),
        delta({ tool_calls: [{ function: { arguments: '1}' } }] }),
        finishChunk('tool_calls'),
      ],
      { generateId: () => 'generated-1' },
    );
    expect(events.find((e) => e.type === 'tool_call')).toEqual({
      type: 'tool_call',
      callId: 'generated-1',
      toolName: 'f',
      arguments: '{"a":1}',
    });
  });

  it('accepts arguments sent as an object instead of JSON text', () => {
    const events = run([
      delta({ tool_calls: [{ index: 0, id: 'a', function: { name: 'f', arguments: { city: 'Rome' } } }] }),
      finishChunk('tool_calls'),
    ]);
    expect(events.find((e) => e.type === 'tool_call')).toMatchObject({ arguments: '{"city":"Rome"}' });
    expect(events[0]).toEqual({
      type: 'tool_call_delta',
      index: 0,
      callId: 'a',
      toolName: 'f',
      argumentsDelta: '{"city":"Rome"}',
    });
  });

  it('keeps the finish reason sticky when a later chunk has none', () => {
    const events = run([
      finishChunk('length'),
      {
        choices: [{ index: 0, delta: { content: '' }, finish_reason: null }],
        usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 },
      },
    ]);
    expect(events.at(-1)).toEqual({ type: 'done', finishReason: 'length' });
  });

  it('emits one usage event, from the last usage reported, just before done', () => {
    const events = run([
      { choices: [], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } },
      delta({ content: 'x' }, 'stop'),
      { choices: [], usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } },
    ]);
    expect(events).toEqual([
      { type: 'text_delta', text: 'x' },
      { type: 'usage', usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 } },
      { type: 'done', finishReason: 'stop' },
    ]);
  });

  it('emits no usage event when the server reports none', () => {
    expect(run([delta({ content: 'x' }, 'stop')]).some((e) => e.type === 'usage')).toBe(false);
  });

  it('reads cached tokens from prompt_tokens_details or DeepSeek prompt_cache_hit_tokens, and fills a missing total', () => {
    const [usage] = run([
      finishChunk('stop'),
      { usage: { prompt_tokens: 50, completion_tokens: 7, prompt_cache_hit_tokens: 40 } },
    ]);
    expect(usage).toEqual({
      type: 'usage',
      usage: { inputTokens: 50, outputTokens: 7, totalTokens: 57, cachedInputTokens: 40 },
    });
  });

  it("prefers the server's cost over the price list", () => {
    const pricing = { inputPerMillion: 1000, outputPerMillion: 1000 };
    const server = run(
      [
        finishChunk('stop'),
        { usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20, cost: 0.5 } },
      ],
      { pricing },
    );
    expect(server[0]).toMatchObject({ type: 'usage', cost: 0.5 });
    const priced = run(
      [finishChunk('stop'), { usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 } }],
      { pricing },
    );
    expect(priced[0]).toMatchObject({ type: 'usage', cost: 0.02 });
    const free = run([
      finishChunk('stop'),
      { usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 } },
    ]);
    expect('cost' in free[0]!).toBe(false);
  });

  it('ignores chunks with empty choices (Azure filter results) and choices other than 0', () => {
    const events = run([
      { choices: [] },
      { choices: [{ index: 1, delta: { content: 'other' }, finish_reason: 'length' }] },
      delta({ content: 'mine' }, 'stop'),
    ]);
    expect(events).toEqual([
      { type: 'text_delta', text: 'mine' },
      { type: 'done', finishReason: 'stop' },
    ]);
  });

  it('tolerates malformed fields without throwing', () => {
    const odd = [
      { choices: 'nope', usage: 'nope' },
      { choices: [{ delta: null }] },
      { choices: [{ delta: { tool_calls: 'x', content: 5 } }] },
    ];
    expect(run([...(odd as unknown as WireChunk[]), finishChunk('stop')])).toEqual([
      { type: 'done', finishReason: 'stop' },
    ]);
  });

  it('throws a provider error for an error object in a chunk, retryable only when transient', async () => {
    const assembler = new ChatStreamAssembler({ providerId: 'p' });
    const fatal = await expectAgentError(() =>
      assembler.push({ error: { code: 400, message: 'Token limit reached' } }),
    );
    expect([fatal.code, fatal.retryable]).toEqual(['PROVIDER_ERROR', false]);
    const transient = await expectAgentError(() =>
      assembler.push({ error: { message: 'Provider returned error', code: 502 } }),
    );
    expect(transient.retryable).toBe(true);
  });

  it('throws a retryable provider error when the stream ended without a finish reason', async () => {
    const assembler = new ChatStreamAssembler({ providerId: 'p' });
    assembler.push(delta({ content: 'partial' }));
    const error = await expectAgentError(() => assembler.finish());
    expect([error.code, error.retryable]).toEqual(['PROVIDER_ERROR', true]);
  });
});
