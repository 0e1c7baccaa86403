import { describe, expect, it } from 'vitest';
import { AgentError } from '../../../src/errors.js';
import type { ModelProvider } from '../../../src/ports/model-provider.js';
import { streamModel } from '../../../src/runtime/steps/stream-model.js';
import { reply } from '../../../src/testing/index.js';
import { input, raw, scripted, setup } from './stream-model.support.js';
import { live, model } from './support.js';

describe('streamModel: failed attempts resolve, never throw', () => {
  it('passes a provider’s AgentError through as it is', async () => {
    const failure = new AgentError('PROVIDER_ERROR', 'overloaded', { retryable: true, retryAfterMs: 10 });
    const { journal, scope } = setup(scripted(reply.error(failure)));
    const output = await streamModel(scope, input(), live());
    expect(output).toEqual({ ok: false, error: failure, hadOutput: false });
    expect(journal.appended).toEqual([]);
    expect(journal.hookData('post_request')).toEqual([]);
  });

  it('labels anything else a provider throws PROVIDER_ERROR from the provider, not retryable', async () => {
    const cause = new TypeError('socket hang up');
    const output = await streamModel(setup(scripted(reply.error(cause))).scope, input(), live());
    expect(output.ok).toBe(false);
    if (output.ok) return;
    expect(output.error).toMatchObject({ code: 'PROVIDER_ERROR', source: 'provider', retryable: false });
    expect(output.error.message).toContain('socket hang up');
    expect(output.error.cause).toBe(cause);
  });

  it('labels a provider whose chat() throws before streaming the same way', async () => {
    const provider: ModelProvider = {
      id: 'broken',
      models: [model()],
      chat: () => {
        throw new RangeError('no stream');
      },
    };
    const output = await streamModel(setup(provider).scope, input(), live());
    expect(output).toMatchObject({
      ok: false,
      hadOutput: false,
      error: { code: 'PROVIDER_ERROR', source: 'provider' },
    });
  });

  it('does not blame the provider for its own crash: a throw while handling an event rejects', async () => {
    const { scope } = setup(scripted(reply.text('fine')));
    const bug = new TypeError('emit is broken');
    scope.emit = () => {
      throw bug;
    };
    // Rejecting leaves the labelling to the seam, which calls it INTERNAL_ERROR.
    await expect(streamModel(scope, input(), live())).rejects.toBe(bug);
  });

  it('says output was already streamed when a failure follows a delta, and keeps it in the draft', async () => {
    const { journal, scope, draft } = setup(
      scripted([
        { type: 'text_delta', text: 'Par' },
        { type: 'throw', error: new Error('reset') },
      ]),
    );
    const output = await streamModel(scope, input(), live());
    expect(output).toMatchObject({ ok: false, hadOutput: true });
    expect(journal.appended).toEqual([]);
    expect(draft).toMatchObject({ text: 'Par', streamed: true });
  });

  it('fails a stream that ends without a finish reason as retryable, appending nothing', async () => {
    const { journal, scope } = setup(scripted([{ type: 'text_delta', text: 'cut' }]));
    const output = await streamModel(scope, input(), live());
    expect(output).toMatchObject({
      ok: false,
      hadOutput: true,
      error: { code: 'PROVIDER_ERROR', retryable: true },
    });
    expect(output.ok === false && output.error.message).toContain('without a finish reason');
    expect(journal.appended).toEqual([]);
  });

  it.each([
    ['a delta without text', { type: 'text_delta', text: 42 }],
    ['an unknown event type', { type: 'image_delta', data: 'x' }],
    ['a usage that is not a TokenUsage', { type: 'usage', usage: { inputTokens: -1 } }],
    ['a done without a finish reason', { type: 'done' }],
    ['a tool call without a name', { type: 'tool_call', callId: 'c', arguments: '{}' }],
    ['no event at all', null],
  ])('fails on %s: PROVIDER_ERROR naming the provider, not retryable', async (_, event) => {
    const { scope } = setup(raw('odd', event, { type: 'done', finishReason: 'stop' }));
    const output = await streamModel(scope, input(), live());
    expect(output).toMatchObject({ ok: false, error: { code: 'PROVIDER_ERROR', retryable: false } });
    expect(output.ok === false && output.error.message).toContain(
      "provider 'odd' sent an invalid stream event",
    );
  });

  it('stops at a cancel: nothing more is emitted, REQUEST_CANCELLED, nothing appended', async () => {
    // A provider that ignores the signal: the step itself must stop reading.
    const provider = raw(
      'deaf',
      { type: 'text_delta', text: 'a' },
      { type: 'text_delta', text: 'b' },
      { type: 'done', finishReason: 'stop' },
    );
    const { journal, scope } = setup(provider);
    const controller = new AbortController();
    scope.emit = (payload) => {
      journal.emit(payload);
      controller.abort();
    };
    const output = await streamModel(scope, input(), controller.signal);
    expect(output).toMatchObject({ ok: false, hadOutput: true, error: { code: 'REQUEST_CANCELLED' } });
    expect(journal.emitted).toEqual([{ type: 'text_delta', text: 'a' }]);
    expect(journal.appended).toEqual([]);
    expect(journal.hookData('post_request')).toEqual([]);
  });

  it('makes no request when the turn was cancelled while pre_request ran', async () => {
    const provider = scripted(reply.text('unused'));
    const { journal, scope } = setup(provider);
    const controller = new AbortController();
    journal.hooks.tap('pre_request', 'slow', null, () => void controller.abort());
    const output = await streamModel(scope, input(), controller.signal);
    expect(output).toMatchObject({ ok: false, hadOutput: false, error: { code: 'REQUEST_CANCELLED' } });
    expect(provider.calls).toBe(0);
  });

  it('keeps a response a cancel hit after it was recorded, but fires no post_request', async () => {
    const { journal, scope } = setup(
      scripted(reply.text('done', { usage: { inputTokens: 1, outputTokens: 1 } })),
    );
    const controller = new AbortController();
    scope.emit = (payload) => {
      journal.emit(payload);
      if (payload.type === 'usage') controller.abort();
    };
    const output = await streamModel(scope, input(), controller.signal);
    expect(output).toMatchObject({ ok: false, error: { code: 'REQUEST_CANCELLED' } });
    expect(journal.trail).toEqual(['hook:pre_request', 'emit:text_delta', 'append:assistant', 'emit:usage']);
  });
});
