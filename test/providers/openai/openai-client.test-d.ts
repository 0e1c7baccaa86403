/**
 * Type tests: `OpenAIProviderOptions.client` is structural, so any `openai` client (this SDK copy,
 * a subclass such as `AzureOpenAI`, or another copy of the SDK, checked by the dist smoke test on
 * openai 7) is accepted, while an object without a streaming `chat.completions.create` is not.
 */
import OpenAI, { AzureOpenAI } from 'openai';
import { describe, expectTypeOf, it } from 'vitest';
import type { OpenAIChatClient, OpenAIProviderOptions } from '../../../src/openai.js';

describe('OpenAIProviderOptions.client', () => {
  it('accepts an OpenAI client and an AzureOpenAI client', () => {
    expectTypeOf<OpenAI>().toExtend<OpenAIChatClient>();
    expectTypeOf<AzureOpenAI>().toExtend<NonNullable<OpenAIProviderOptions['client']>>();
  });

  it('rejects objects that cannot stream Chat Completions', () => {
    expectTypeOf<{}>().not.toExtend<OpenAIChatClient>();
    // `create` resolving to something that is not a chunk stream (no `controller`).
    type Unstreamed = { chat: { completions: { create(body: unknown): Promise<AsyncIterable<unknown>> } } };
    expectTypeOf<Unstreamed>().not.toExtend<OpenAIChatClient>();
  });
});
