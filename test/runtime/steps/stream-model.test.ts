import { describe, expect, it } from 'vitest';
import { streamModel } from '../../../src/runtime/steps/stream-model.js';
import { reply } from '../../../src/testing/index.js';
import { HookResult, type ModelInfo } from '../../../src/types.js';
import { input, scripted, setup } from './stream-model.support.js';
import { live, model, SPEC, text, usage } from './support.js';

describe('streamModel: a response', () => {
  it('streams deltas, appends the assistant message then its tool calls, reports usage, then post_request', async () => {
    const provider = scripted(
      reply.toolCalls([{ name: 'echo', arguments: { text: 'hi' }, callId: 'c1' }], {
        text: 'Let me check.',
        reasoning: 'thinking',
        usage: { inputTokens: 10, outputTokens: 5 },
      }),
    );
    const { journal, scope, usages, draft } = setup(provider);
    const output = await streamModel(scope, input(2), live());
    // The output names the calls; their arguments wait in the side channel for the batch.
    expect(output).toEqual({
      ok: true,
      toolCalls: [{ callId: 'c1', toolName: 'echo' }],
      finishReason: 'tool_calls',
      usage: usage(10, 5),
    });
    expect([...scope.pendingCalls.values()]).toEqual([
      { callId: 'c1', toolName: 'echo', arguments: '{"text":"hi"}' },
    ]);
    expect(journal.trail).toEqual([
      'hook:pre_request',
      'emit:reasoning_delta',
      'emit:text_delta',
      'append:assistant',
      'append:tool_call',
      'emit:usage',
      'hook:post_request',
    ]);
    expect(journal.appended).toEqual([
      { type: 'assistant', content: [{ type: 'text', text: 'Let me check.' }], status: 'complete' },
      { type: 'tool_call', callId: 'c1', toolName: 'echo', arguments: { text: 'hi' } },
    ]);
    expect(usages).toEqual([usage(10, 5)]);
    expect(journal.hookData('post_request')).toEqual([
      { usage: usage(10, 5), finishReason: 'tool_calls', durationMs: 0, attempt: 2 },
    ]);
    expect(draft).toMatchObject({ text: '', reasoning: '', streamed: false });
  });

  it('sends the model, the turn’s prompt, a copy of the history and the tools, and pre_request sees it', async () => {
    const provider = scripted(reply.text('ok'));
    const { journal, scope } = setup(provider);
    await streamModel(scope, input(3), live());
    const expected = {
      model: 'scripted-model',
      systemPrompt: 'SYS|dyn',
      messages: [text('earlier')],
      tools: [SPEC],
      purpose: 'turn',
    };
    expect(provider.requests).toEqual([expected]);
    expect(journal.hookData('pre_request')).toEqual([{ request: expected, attempt: 3 }]);
  });

  it('sends the request a pre_request hook put in place; the hook cannot reach the history', async () => {
    const provider = scripted(reply.text('ok'));
    const { journal, scope, context } = setup(provider);
    journal.hooks.tap('pre_request', 'edit', null, ({ data }) => {
      data.request.messages.push(text('smuggled'));
      return HookResult.continueWith({ ...data, request: { ...data.request, systemPrompt: 'REPLACED' } });
    });
    await streamModel(scope, input(), live());
    expect(provider.requests[0]).toMatchObject({ systemPrompt: 'REPLACED' });
    expect(provider.requests[0]!.messages).toHaveLength(2);
    expect(context.messages).toEqual([text('earlier'), expect.objectContaining({ type: 'assistant' })]);
  });

  it('is blocked by a pre_request abort: REQUEST_BLOCKED, no request, no output', async () => {
    const provider = scripted(reply.text('unused'));
    const { journal, scope } = setup(provider);
    journal.hooks.tap('pre_request', 'guard', null, () => HookResult.abort('offline'));
    const output = await streamModel(scope, input(), live());
    expect(output).toMatchObject({ ok: false, hadOutput: false, error: { code: 'REQUEST_BLOCKED' } });
    expect(output.ok === false && output.error.message).toContain('offline');
    expect(provider.calls).toBe(0);
    expect(journal.trail).toEqual(['hook:pre_request']);
  });

  it('gives a tool call without an id a fresh one, and keeps invalid JSON arguments as the raw text', async () => {
    const provider = scripted([
      { type: 'tool_call', callId: '', toolName: 'echo', arguments: '{not json' },
      { type: 'done', finishReason: 'tool_calls' },
    ]);
    const { journal, scope } = setup(provider);
    const output = await streamModel(scope, input(), live());
    const callId = output.ok ? output.toolCalls[0]!.callId : '';
    expect(callId).toMatch(/^call_./);
    expect(journal.appended[1]).toEqual({
      type: 'tool_call',
      callId,
      toolName: 'echo',
      arguments: '{not json',
    });
  });

  it('skips empty deltas: nothing emitted, nothing counted as output', async () => {
    const provider = scripted([
      { type: 'text_delta', text: '' },
      { type: 'throw', error: new Error('cut') },
    ]);
    const { journal, scope } = setup(provider);
    const output = await streamModel(scope, input(), live());
    expect(output).toMatchObject({ ok: false, hadOutput: false });
    expect(journal.emitted).toEqual([]);
  });

  it('times post_request with the scope’s clock', async () => {
    const { scope, journal, clock } = setup(scripted(() => (clock.advance(250), reply.text('ok'))));
    await streamModel(scope, input(), live());
    expect(journal.hookData('post_request')).toEqual([expect.objectContaining({ durationMs: 250 })]);
  });

  it('hands post_request the response id and model the provider reported on done', async () => {
    const { scope, journal } = setup(
      scripted([
        { type: 'text_delta', text: 'ok' },
        { type: 'done', finishReason: 'stop', responseId: 'resp_1', responseModel: 'model-2026' },
      ]),
    );
    await streamModel(scope, input(), live());
    expect(journal.hookData('post_request')).toEqual([
      expect.objectContaining({ responseId: 'resp_1', responseModel: 'model-2026' }),
    ]);
  });
});

describe('streamModel: usage and cost', () => {
  const priced = model({ pricing: { inputPerMillion: 1_000_000, outputPerMillion: 2_000_000 } });
  const costOfUsageEvent = async (info: ModelInfo, cost?: number) => {
    const { journal, scope } = setup(
      scripted(
        reply.text('ok', { usage: { inputTokens: 3, outputTokens: 2 }, ...(cost !== undefined && { cost }) }),
      ),
      info,
    );
    await streamModel(scope, input(), live());
    return journal.emitted.find((e) => e.type === 'usage');
  };

  it('reports the server’s cost when it sent one, even with a price list', async () => {
    expect(await costOfUsageEvent(priced, 0.5)).toEqual({ type: 'usage', usage: usage(3, 2), cost: 0.5 });
  });

  it('prices the usage with the model’s price list otherwise', async () => {
    expect(await costOfUsageEvent(priced)).toEqual({ type: 'usage', usage: usage(3, 2), cost: 7 });
  });

  it('reports no cost without either', async () => {
    expect(await costOfUsageEvent(model())).toEqual({ type: 'usage', usage: usage(3, 2) });
  });

  it('reports no usage event when the provider sent none; post_request then has usage null', async () => {
    const { journal, scope, usages } = setup(scripted(reply.text('ok')));
    await streamModel(scope, input(), live());
    expect(journal.emitted.map((e) => e.type)).toEqual(['text_delta']);
    expect(usages).toEqual([]);
    expect(journal.hookData('post_request')).toEqual([expect.objectContaining({ usage: null })]);
  });
});
