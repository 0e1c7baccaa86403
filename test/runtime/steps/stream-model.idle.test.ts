import { describe, expect, it } from 'vitest';
import type { ModelProvider } from '../../../src/ports/model-provider.js';
import { streamModel } from '../../../src/runtime/steps/stream-model.js';
import type { ChatEvent } from '../../../src/types.js';
import { settle } from '../manual-clock.js';
import { input, setup } from './stream-model.support.js';
import { live, model } from './support.js';

/** A provider that yields `first`, then never yields again and ignores its signal. */
const stalling = (first: ChatEvent[] = []): ModelProvider & { signals: AbortSignal[] } => {
  const signals: AbortSignal[] = [];
  return {
    id: 'stalling',
    models: [model()],
    signals,
    async *chat(_request, signal) {
      signals.push(signal);
      yield* first;
      await new Promise(() => {});
    },
  };
};

describe('streamModel: a stalled stream', () => {
  it('fails the attempt as retryable after streamIdleTimeoutMs with no event, before the first one too', async () => {
    const provider = stalling();
    const { scope, clock } = setup(provider);
    scope.idleTimeoutMs = 1_000;
    const attempt = streamModel(scope, input(), live());
    await clock.timerSet();
    await settle();
    clock.advance(999);
    await settle();
    let settledEarly = false;
    void attempt.then(() => (settledEarly = true));
    await settle();
    expect(settledEarly).toBe(false);
    clock.advance(1);
    const output = await attempt;
    expect(output).toMatchObject({
      ok: false,
      hadOutput: false,
      error: { code: 'PROVIDER_ERROR', retryable: true },
    });
    if (!output.ok) expect(output.error.message).toContain('sent no data for 1000ms');
    // The request was aborted too, for providers that honour their signal.
    expect(provider.signals[0]!.aborted).toBe(true);
  });

  it('counts from the last event: a stall after output says output was shown', async () => {
    const provider = stalling([{ type: 'text_delta', text: 'half an ans' }]);
    const { scope, clock, journal } = setup(provider);
    scope.idleTimeoutMs = 1_000;
    const attempt = streamModel(scope, input(), live());
    await clock.timerSet();
    await settle();
    expect(journal.emitted.map((e) => e.type)).toEqual(['text_delta']);
    clock.advance(1_000);
    const output = await attempt;
    expect(output).toMatchObject({ ok: false, hadOutput: true, error: { retryable: true } });
    expect(journal.appended).toEqual([]);
  });

  it('does not fire while events keep coming', async () => {
    let push!: (event: ChatEvent | null) => void;
    const provider: ModelProvider = {
      id: 'slow',
      models: [model()],
      async *chat() {
        for (;;) {
          const event = await new Promise<ChatEvent | null>((resolve) => (push = resolve));
          if (event === null) return;
          yield event;
        }
      },
    };
    const { scope, clock } = setup(provider);
    scope.idleTimeoutMs = 1_000;
    const attempt = streamModel(scope, input(), live());
    await clock.timerSet();
    for (let i = 0; i < 5; i++) {
      await settle();
      clock.advance(600); // each gap is under the limit; the total is three times it
      push({ type: 'text_delta', text: `${i} ` });
    }
    await settle();
    push({ type: 'done', finishReason: 'stop' });
    await settle();
    push(null);
    const output = await attempt;
    expect(output).toMatchObject({ ok: true, finishReason: 'stop' });
  });
});
