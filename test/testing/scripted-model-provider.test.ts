import { afterEach, describe, expect, it, vi } from 'vitest';
import { AgentError } from '../../src/errors.js';
import type { ModelProvider } from '../../src/ports/model-provider.js';
import {
  ScriptedModelProvider,
  SCRIPTED_MODEL,
  UnscriptedModelCallError,
  reply,
  type ScriptItem,
} from '../../src/testing/index.js';
import type { ChatEvent, ChatRequest } from '../../src/types.js';
import { expectAgentError } from '../support/errors.js';
import { chatRequest } from '../support/models.js';
import { hasSettled } from '../support/waits.js';

const request = (text = 'hi') => chatRequest(text, { model: 'scripted-model', systemPrompt: 'be brief' });

async function collect(stream: AsyncIterable<ChatEvent>): Promise<ChatEvent[]> {
  const events: ChatEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

afterEach(() => {
  vi.useRealTimers();
});

describe('ScriptedModelProvider setup', () => {
  it('is a ModelProvider with id "scripted" and one capable default model', () => {
    const provider: ModelProvider = new ScriptedModelProvider();
    expect(provider.id).toBe('scripted');
    expect(provider.models).toEqual([
      {
        id: 'scripted-model',
        displayName: 'Scripted model',
        contextWindow: 128_000,
        capabilities: { toolUse: true, vision: true, streaming: true },
      },
    ]);
    expect(provider.models[0]).toEqual(SCRIPTED_MODEL);
  });

  it('takes its id and models from the options', () => {
    const models = [{ ...SCRIPTED_MODEL, id: 'tiny', contextWindow: 2000 }];
    const provider = new ScriptedModelProvider({ id: 'fake', models });
    expect(provider.id).toBe('fake');
    expect(provider.models).toEqual(models);
  });
});

describe('ScriptedModelProvider playback', () => {
  it('streams each call’s scripted items in order', async () => {
    const provider = new ScriptedModelProvider({
      script: [
        [
          { type: 'text_delta', text: 'a' },
          { type: 'text_delta', text: 'b' },
          { type: 'done', finishReason: 'stop' },
        ],
        [{ type: 'done', finishReason: 'length' }],
      ],
    });
    const signal = new AbortController().signal;
    expect(await collect(provider.chat(request(), signal))).toEqual([
      { type: 'text_delta', text: 'a' },
      { type: 'text_delta', text: 'b' },
      { type: 'done', finishReason: 'stop' },
    ]);
    expect(await collect(provider.chat(request(), signal))).toEqual([
      { type: 'done', finishReason: 'length' },
    ]);
  });

  it('records deep copies of the requests, in call order, and counts calls and steps left', async () => {
    const provider = new ScriptedModelProvider({
      script: [reply.text('1'), reply.text('2'), reply.text('3')],
    });
    const signal = new AbortController().signal;
    const first = request('first');
    expect(provider.calls).toBe(0);
    expect(provider.remaining).toBe(3);
    await collect(provider.chat(first, signal));
    first.messages.push({ type: 'system', content: 'mutated later' });
    await collect(provider.chat(request('second'), signal));
    expect(provider.requests).toEqual([request('first'), request('second')]);
    expect(provider.requests[0]).not.toBe(first);
    expect(provider.calls).toBe(2);
    expect(provider.remaining).toBe(1);
  });

  it('builds a response with a step function from the request and the call index', async () => {
    const seen: [string, number][] = [];
    const echo = (req: ChatRequest, index: number) => {
      const message = req.messages[0];
      const text =
        message?.type === 'user' && message.content[0]?.type === 'text' ? message.content[0].text : '';
      seen.push([text, index]);
      return reply.text(`echo ${text} #${index}`);
    };
    const provider = new ScriptedModelProvider({ script: [echo, echo] });
    const signal = new AbortController().signal;
    const events = await collect(provider.chat(request('ping'), signal));
    await collect(provider.chat(request('pong'), signal));
    expect(events[0]).toEqual({ type: 'text_delta', text: 'echo ping #0' });
    expect(seen).toEqual([
      ['ping', 0],
      ['pong', 1],
    ]);
  });

  it('enqueue adds steps after the scripted ones and chains', async () => {
    const provider = new ScriptedModelProvider({ script: [reply.text('first')] });
    expect(provider.enqueue(reply.text('second'), reply.text('third'))).toBe(provider);
    expect(provider.remaining).toBe(3);
    const signal = new AbortController().signal;
    const texts: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      const [first] = await collect(provider.chat(request(), signal));
      texts.push(first?.type === 'text_delta' ? first.text : '?');
    }
    expect(texts).toEqual(['first', 'second', 'third']);
  });

  it('fails a call with no step left with an UnscriptedModelCallError naming the call, and keeps it', async () => {
    const provider = new ScriptedModelProvider({ script: [reply.text('only')] });
    const signal = new AbortController().signal;
    await collect(provider.chat(request(), signal));
    expect(provider.unscriptedCalls).toEqual([]);
    const asked = request('and what about tomorrow?');
    const outcome = collect(provider.chat(asked, signal));
    await expect(outcome).rejects.toBeInstanceOf(UnscriptedModelCallError);

    const [unscripted] = provider.unscriptedCalls as [UnscriptedModelCallError];
    await expect(outcome).rejects.toBe(unscripted);
    expect(UnscriptedModelCallError.isInstance(unscripted)).toBe(true);
    expect(unscripted).toBeInstanceOf(Error);
    expect(AgentError.isInstance(unscripted)).toBe(false);
    expect(unscripted.name).toBe('UnscriptedModelCallError');
    expect(unscripted.message).toBe(
      'ScriptedModelProvider: no scripted response for call #2 ' +
        `(purpose 'turn', model 'scripted-model', last user text "and what about tomorrow?")`,
    );
    expect(unscripted.callIndex).toBe(1);
    expect(unscripted.request).toEqual(asked);
    expect(unscripted.request).not.toBe(asked);
    expect(provider.calls).toBe(2);
    expect(provider.unscriptedCalls).toEqual([unscripted]);
    // assertConsumed throws the call itself, not a count of steps.
    expect(() => provider.assertConsumed()).toThrow(unscripted);
  });

  it('names a call without user text, and cuts a long last user text in its message', async () => {
    const provider = new ScriptedModelProvider();
    const signal = new AbortController().signal;
    const summary: ChatRequest = { ...request(), purpose: 'compaction', messages: [] };
    await expect(collect(provider.chat(summary, signal))).rejects.toBeInstanceOf(UnscriptedModelCallError);
    const long = request(`${'é'.repeat(80)}and more`);
    await expect(collect(provider.chat(long, signal))).rejects.toBeInstanceOf(UnscriptedModelCallError);
    const [first, second] = provider.unscriptedCalls;
    expect(first!.message).toContain("call #1 (purpose 'compaction', model 'scripted-model', no user text)");
    expect(second!.message).toContain(
      `call #2 (purpose 'turn', model 'scripted-model', last user text "${'é'.repeat(80)}…")`,
    );
    expect(() => provider.assertConsumed()).toThrow(first!);
  });

  it('recognises an UnscriptedModelCallError by its marker, also from another copy of the package', () => {
    const error = new UnscriptedModelCallError(0, request());
    const foreign = Object.assign(new Error('from another bundle'), {
      [Symbol.for('youyou-agent.unscripted-model-call')]: true,
    });
    expect(UnscriptedModelCallError.isInstance(error)).toBe(true);
    expect(UnscriptedModelCallError.isInstance(foreign)).toBe(true);
    for (const value of [new Error('x'), new AgentError('PROVIDER_ERROR', 'x'), null, 'x', {}]) {
      expect(UnscriptedModelCallError.isInstance(value)).toBe(false);
    }
  });

  it('assertConsumed throws while steps are left and passes once all are used', async () => {
    const provider = new ScriptedModelProvider({ script: [reply.text('a'), reply.text('b')] });
    expect(() => provider.assertConsumed()).toThrow('2 scripted responses were not used (0 calls made)');
    await collect(provider.chat(request(), new AbortController().signal));
    expect(() => provider.assertConsumed()).toThrow('1 scripted response was not used (1 call made)');
    await collect(provider.chat(request(), new AbortController().signal));
    expect(() => provider.assertConsumed()).not.toThrow();
  });

  it('throws a throw item’s error as-is, after the items before it', async () => {
    const failure = new AgentError('PROVIDER_ERROR', 'overloaded', { retryable: true });
    const odd = { not: 'an error' };
    const provider = new ScriptedModelProvider({
      script: [[{ type: 'text_delta', text: 'partial' }, ...reply.error(failure)], reply.error(odd)],
    });
    const signal = new AbortController().signal;
    const received: ChatEvent[] = [];
    await expect(
      (async () => {
        for await (const event of provider.chat(request(), signal)) received.push(event);
      })(),
    ).rejects.toBe(failure);
    expect(received).toEqual([{ type: 'text_delta', text: 'partial' }]);
    await expect(collect(provider.chat(request(), signal))).rejects.toBe(odd);
    expect(provider.aborted).toBe(0);
  });
});

describe('ScriptedModelProvider delay and wait', () => {
  it('delay holds the next item until its time has passed', async () => {
    // Only the timers: setImmediate stays real, so hasSettled can drain the promise jobs.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const provider = new ScriptedModelProvider({
      script: [[{ type: 'delay', ms: 100 }, ...reply.text('late')]],
    });
    const stream = provider.chat(request(), new AbortController().signal);
    const next = stream.next();
    expect(await hasSettled(next)).toBe(false);
    await vi.advanceTimersByTimeAsync(99);
    expect(await hasSettled(next)).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await next).toEqual({ done: false, value: { type: 'text_delta', text: 'late' } });
  });

  it('wait holds the stream until the promise resolves', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const provider = new ScriptedModelProvider({
      script: [
        [{ type: 'text_delta', text: 'before' }, { type: 'wait', until: gate }, ...reply.text('after')],
      ],
    });
    const stream = provider.chat(request(), new AbortController().signal);
    expect((await stream.next()).value).toEqual({ type: 'text_delta', text: 'before' });
    const next = stream.next();
    expect(await hasSettled(next)).toBe(false);
    release();
    expect((await next).value).toEqual({ type: 'text_delta', text: 'after' });
  });

  it('wait rethrows the rejection of its promise as-is', async () => {
    const failure = new Error('gate broke');
    const provider = new ScriptedModelProvider({
      script: [[{ type: 'wait', until: Promise.reject(failure) }, ...reply.text('never')]],
    });
    await expect(collect(provider.chat(request(), new AbortController().signal))).rejects.toBe(failure);
  });
});

describe('ScriptedModelProvider abort', () => {
  it('rejects promptly with REQUEST_CANCELLED when aborted mid-delay, and counts it', async () => {
    const provider = new ScriptedModelProvider({
      script: [[{ type: 'text_delta', text: 'x' }, { type: 'delay', ms: 3_600_000 }, ...reply.text('never')]],
    });
    const controller = new AbortController();
    const stream = provider.chat(request(), controller.signal);
    await stream.next();
    const next = stream.next();
    expect(await hasSettled(next)).toBe(false);
    controller.abort();
    await expectAgentError(next, 'REQUEST_CANCELLED');
    expect(provider.aborted).toBe(1);
  });

  it('rejects with REQUEST_CANCELLED when aborted while waiting, and counts it', async () => {
    const provider = new ScriptedModelProvider({
      script: [[{ type: 'wait', until: new Promise(() => {}) }, ...reply.text('never')]],
    });
    const controller = new AbortController();
    const next = provider.chat(request(), controller.signal)[Symbol.asyncIterator]().next();
    expect(await hasSettled(next)).toBe(false);
    controller.abort();
    await expectAgentError(next, 'REQUEST_CANCELLED');
    expect(provider.aborted).toBe(1);
  });

  it('checks the signal at every yield point', async () => {
    const provider = new ScriptedModelProvider({ script: [reply.text('abcdef', { chunks: 3 })] });
    const controller = new AbortController();
    const stream = provider.chat(request(), controller.signal);
    expect((await stream.next()).value).toEqual({ type: 'text_delta', text: 'ab' });
    controller.abort();
    await expectAgentError(stream.next(), 'REQUEST_CANCELLED');
    expect(provider.aborted).toBe(1);
    expect(await stream.next()).toEqual({ done: true, value: undefined });
  });

  it('fails an already-aborted call without using up its step', async () => {
    const provider = new ScriptedModelProvider({ script: [reply.text('kept')] });
    const controller = new AbortController();
    controller.abort();
    await expectAgentError(collect(provider.chat(request(), controller.signal)), 'REQUEST_CANCELLED');
    expect(provider.remaining).toBe(1);
    expect(provider.calls).toBe(1);
    expect(provider.aborted).toBe(1);
  });

  it('counts a stream the consumer stops after aborting, but not one it just stops', async () => {
    const provider = new ScriptedModelProvider({
      script: [reply.text('abc', { chunks: 3 }), reply.text('abc', { chunks: 3 })],
    });
    const plain = provider.chat(request(), new AbortController().signal);
    await plain.next();
    await plain.return();
    expect(provider.aborted).toBe(0);

    const controller = new AbortController();
    const aborted = provider.chat(request(), controller.signal);
    await aborted.next();
    controller.abort();
    await aborted.return();
    expect(provider.aborted).toBe(1);
  });

  it('does not fail a stream that has delivered everything', async () => {
    const provider = new ScriptedModelProvider({ script: [reply.text('done')] });
    const controller = new AbortController();
    const stream = provider.chat(request(), controller.signal);
    await stream.next();
    expect((await stream.next()).value).toEqual({ type: 'done', finishReason: 'stop' });
    controller.abort();
    expect(await stream.next()).toEqual({ done: true, value: undefined });
    expect(provider.aborted).toBe(0);
  });
});

describe('reply builders', () => {
  it('text: one delta then done with finish reason stop', () => {
    expect(reply.text('Hello')).toEqual([
      { type: 'text_delta', text: 'Hello' },
      { type: 'done', finishReason: 'stop' },
    ]);
  });

  it('text: splits into chunks at character boundaries, reasoning first, usage before done', () => {
    const items = reply.text('a😀bcd', {
      chunks: 2,
      reasoning: 'thinking',
      usage: { inputTokens: 10, outputTokens: 5, reasoningTokens: 2 },
      cost: 0.01,
      finishReason: 'length',
    });
    expect(items).toEqual([
      { type: 'reasoning_delta', text: 'thinking' },
      { type: 'text_delta', text: 'a😀' },
      { type: 'text_delta', text: 'bcd' },
      {
        type: 'usage',
        usage: { inputTokens: 10, outputTokens: 5, reasoningTokens: 2, totalTokens: 15 },
        cost: 0.01,
      },
      { type: 'done', finishReason: 'length' },
    ]);
  });

  it('text: never emits empty deltas and rejects a bad chunk count', () => {
    expect(reply.text('ab', { chunks: 5 }).filter((item) => item.type === 'text_delta')).toHaveLength(2);
    expect(reply.text('')).toEqual([{ type: 'done', finishReason: 'stop' }]);
    expect(() => reply.text('x', { chunks: 0 })).toThrow(AgentError);
    expect(() => reply.text('x', { chunks: 1.5 })).toThrow('chunks must be a positive integer');
  });

  it('usage: missing counts are zero and totalTokens defaults to input + output', () => {
    expect(reply.text('x', { usage: { outputTokens: 3 } })).toContainEqual({
      type: 'usage',
      usage: { inputTokens: 0, outputTokens: 3, totalTokens: 3 },
    });
    expect(reply.text('x', { usage: { inputTokens: 1, outputTokens: 1, totalTokens: 9 } })).toContainEqual({
      type: 'usage',
      usage: { inputTokens: 1, outputTokens: 1, totalTokens: 9 },
    });
  });

  it('toolCalls: objects as JSON text, strings as-is, given or fresh unique ids, finish reason tool_calls', () => {
    const items = reply.toolCalls(
      [
        { name: 'search', arguments: { q: 'oslo', n: 2 }, callId: 'c1' },
        { name: 'broken', arguments: '{"unterminated' },
        { name: 'noargs', arguments: undefined },
      ],
      { text: 'Let me look.', usage: { inputTokens: 4, outputTokens: 2 } },
    );
    const [text, first, second, third, usage, done] = items as ScriptItem[];
    expect(text).toEqual({ type: 'text_delta', text: 'Let me look.' });
    expect(first).toEqual({
      type: 'tool_call',
      callId: 'c1',
      toolName: 'search',
      arguments: '{"q":"oslo","n":2}',
    });
    expect(second).toMatchObject({ type: 'tool_call', toolName: 'broken', arguments: '{"unterminated' });
    expect(third).toMatchObject({ type: 'tool_call', toolName: 'noargs', arguments: '{}' });
    const generated = [second, third].map((item) => (item?.type === 'tool_call' ? item.callId : ''));
    expect(generated[0]).toMatch(/^call_\w+$/);
    expect(new Set(generated).size).toBe(2);
    expect(usage).toEqual({ type: 'usage', usage: { inputTokens: 4, outputTokens: 2, totalTokens: 6 } });
    expect(done).toEqual({ type: 'done', finishReason: 'tool_calls' });
    expect(items).toHaveLength(6);
  });

  it('error: a response that throws the error', () => {
    const failure = new Error('x');
    expect(reply.error(failure)).toEqual([{ type: 'throw', error: failure }]);
  });
});
