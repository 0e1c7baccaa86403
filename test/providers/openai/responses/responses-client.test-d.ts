/**
 * Type tests: `OpenAIResponsesProviderOptions.client` is structural, so any `openai` client (or a
 * subclass such as `AzureOpenAI`) is accepted, while an object without a streaming
 * `responses.create` is not.
 */
import OpenAI, { AzureOpenAI } from 'openai';
import { describe, expectTypeOf, it } from 'vitest';
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
