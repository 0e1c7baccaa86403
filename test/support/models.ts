/**
 * Small builders of what providers take: a {@link chatModel} to serve and a {@link chatRequest}
 * to send. No Node-only API, so the browser page bundles can import it too.
 * @module
 */
import { SCRIPTED_MODEL } from '../../src/testing/index.js';
import type { ChatRequest, ModelInfo } from '../../src/types.js';

/** A model for a provider under test: 8,192 tokens of context, tools, no vision, streaming. */
export function chatModel(id: string, fields: Partial<ModelInfo> = {}): ModelInfo {
  return {
    id,
    displayName: id,
    contextWindow: 8192,
    capabilities: { toolUse: true, vision: false, streaming: true },
    ...fields,
  };
}

/**
 * A `turn` request to model `m` with no system prompt and no tools, whose one message is the user
 * saying `text`; `fields` override any of that.
 * @example
 * chatRequest('hi', { model: 'qwen3:8b', maxOutputTokens: 64 });
 */
export function chatRequest(text: string, fields: Partial<ChatRequest> = {}): ChatRequest {
  return {
    model: 'm',
    systemPrompt: '',
    messages: [{ type: 'user', content: [{ type: 'text', text }] }],
    tools: [],
    purpose: 'turn',
    ...fields,
  };
}

/** The scripted model priced at $10 per million output tokens, input free (budget tests). */
export const PRICED_MODEL: ModelInfo = {
  ...SCRIPTED_MODEL,
  pricing: { inputPerMillion: 0, outputPerMillion: 10 },
};

/** {@link PRICED_MODEL} with a 2,000-token window: it compacts above 1,300 tokens. */
export const SMALL_WINDOW: ModelInfo = { ...PRICED_MODEL, contextWindow: 2_000 };

/** An answer of about 2,000 tokens: after it, a request in a {@link SMALL_WINDOW} is over the compaction threshold. */
export const LONG_ANSWER = 'x'.repeat(8_000);
