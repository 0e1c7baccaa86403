/**
 * Type tests: `OpenAIResponsesProviderOptions.client` is structural, so any `openai` client (or a
 * subclass such as `AzureOpenAI`) is accepted, while an object without a streaming
 * `responses.create` is not. The items of `response_items` and `providerItems` are read-only.
 */
import OpenAI, { AzureOpenAI } from 'openai';
import { describe, expectTypeOf, it } from 'vitest';
import type { ChatEvent, ProviderItems } from '../../../../src/index.js';
import type { OpenAIResponsesClient, OpenAIResponsesProviderOptions } from '../../../../src/openai.js';

describe('OpenAIResponsesProviderOptions.client', () => {
  it('accepts an OpenAI client and an AzureOpenAI client', () => {
    expectTypeOf<OpenAI>().toExtend<OpenAIResponsesClient>();
    expectTypeOf<AzureOpenAI>().toExtend<NonNullable<OpenAIResponsesProviderOptions['client']>>();
  });

  it('rejects objects that cannot stream responses', () => {
    expectTypeOf<{}>().not.toExtend<OpenAIResponsesClient>();
    type Unstreamed = { responses: { create(body: unknown): Promise<AsyncIterable<unknown>> } };
    expectTypeOf<Unstreamed>().not.toExtend<OpenAIResponsesClient>();
  });
});

describe('response_items and providerItems', () => {
  it('take the items as a read-only list', () => {
    type Items = Extract<ChatEvent, { type: 'response_items' }>['items'];
    expectTypeOf<Items>().toEqualTypeOf<readonly unknown[]>();
    expectTypeOf<ProviderItems>().toEqualTypeOf<{
      provider: string;
      model: string;
      items: readonly unknown[];
    }>();
  });
});
