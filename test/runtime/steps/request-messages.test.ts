/**
 * What a turn request carries of the history: the same messages in a fresh array when nothing can
 * write to them, a deep copy otherwise, and a copy that is `structuredClone`'s for any data.
 */
import { describe, expect, it } from 'vitest';
import type { ModelProvider } from '../../../src/ports/model-provider.js';
import { READS_REQUEST_ONLY, requestMessages } from '../../../src/runtime/steps/request-messages.js';
import { streamModel } from '../../../src/runtime/steps/stream-model.js';
import type { ChatRequest, Message } from '../../../src/types.js';
import { input, setup } from './stream-model.support.js';
import { live, model } from './support.js';

/** A provider that keeps the request it was sent; `readOnly` marks it as one that only reads it. */
function keeping(readOnly: boolean) {
  const requests: ChatRequest[] = [];
  const provider: ModelProvider & { [READS_REQUEST_ONLY]?: boolean } = {
    id: 'keeping',
    models: [model()],
    async *chat(request) {
      requests.push(request);
      yield { type: 'done', finishReason: 'stop' };
    },
  };
  if (readOnly) provider[READS_REQUEST_ONLY] = true;
  return { provider, requests };
}

describe('the messages of a turn request', () => {
  it('are the history’s own messages, in a fresh array, for a read-only provider and no pre_request handler', async () => {
    const { provider, requests } = keeping(true);
    const { scope, context } = setup(provider);
    const history = context.messages;
    const first = history[0];
    await streamModel(scope, input(), live());
    expect(requests[0]!.messages).not.toBe(history);
    expect(requests[0]!.messages[0]).toBe(first);
    expect(requests[0]!.messages).toHaveLength(1);
  });

  it('are a deep copy when a pre_request handler is registered', async () => {
    const { provider, requests } = keeping(true);
    const { scope, context, journal } = setup(provider);
    journal.hooks.tap('pre_request', 'watch', null, () => undefined);
    await streamModel(scope, input(), live());
    expect(requests[0]!.messages[0]).not.toBe(context.messages[0]);
    expect(requests[0]!.messages[0]).toEqual(context.messages[0]);
  });

  it('are a deep copy for a provider that does not say it only reads', async () => {
    const { provider, requests } = keeping(false);
    const { scope, context } = setup(provider);
    await streamModel(scope, input(), live());
    const [sent] = requests[0]!.messages as [Extract<Message, { type: 'user' }>];
    expect(sent).not.toBe(context.messages[0]);
    expect(sent.content).not.toBe((context.messages[0] as typeof sent).content);
    expect(sent).toEqual(context.messages[0]);
  });
});

describe('requestMessages: the deep copy', () => {
  const call = (args: unknown): Message => ({
    type: 'tool_call',
    callId: 'c',
    toolName: 't',
    arguments: args,
  });

  it.each([
    ['nested JSON data', call({ a: [1, { b: null, c: [true, 'x'] }], d: -0, e: 1e300 })],
    ['a __proto__ key, as JSON.parse makes it', call(JSON.parse('{"__proto__": {"x": 1}, "y": 2}'))],
    ['a null-prototype object', call(Object.assign(Object.create(null) as object, { k: 'v' }))],
    ['a Date and a Map (not JSON data)', call({ at: new Date(0), map: new Map([['k', 1]]) })],
    ['a hole in an array', call([1, , 3])],
    ['undefined values', call({ gone: undefined, list: [undefined] })],
  ])('copies %s as structuredClone does', (_, message) => {
    const [copy] = requestMessages([message], false);
    expect(copy).toStrictEqual(structuredClone(message));
    expect(Object.getPrototypeOf((copy as { arguments: object }).arguments)).toBe(
      Object.getPrototypeOf((structuredClone(message) as { arguments: object }).arguments),
    );
  });

  it('copies a cycle as structuredClone does', () => {
    const args: Record<string, unknown> = { name: 'loop' };
    args.self = args;
    const [copy] = requestMessages([call(args)], false) as unknown as [
      { arguments: Record<string, unknown> },
    ];
    expect(copy.arguments).not.toBe(args);
    expect(copy.arguments.self).toBe(copy.arguments);
  });

  it('shares nothing with the history', () => {
    const message: Message = { type: 'user', content: [{ type: 'text', text: 'hi' }] };
    const [copy] = requestMessages([message], false) as [typeof message];
    copy.content[0] = { type: 'text', text: 'changed' };
    expect(message.content[0]).toEqual({ type: 'text', text: 'hi' });
  });
});
