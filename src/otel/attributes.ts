/**
 * The span names, attribute values and error texts of the GenAI conventions as the plugin
 * writes them.
 * @module
 */
import type { ModelProvider } from '../ports/model-provider.js';
import type { TokenUsage } from '../types.js';

/** `gen_ai.provider.name`: the conventions' well-known name of both OpenAI providers, else the id. */
export function providerName(provider: Pick<ModelProvider, 'id'>): string {
  return provider.id === 'openai' || provider.id === 'openai-responses' ? 'openai' : provider.id;
}

/**
 * The fixed sentence of an infrastructure failure's code: its own message may carry detail
 * (hosts, SQL, an upstream's text) that a trace backend must not receive.
 */
const FIXED_SENTENCES: Readonly<Record<string, string>> = {
  STORAGE_ERROR: 'the session storage failed',
  PROVIDER_ERROR: 'the model provider failed',
  INTERNAL_ERROR: 'the server failed',
};

/** The status message of a failed turn: the code's fixed sentence, or the error's message. */
export function failureMessage(error: { code: string; message: string }): string {
  return FIXED_SENTENCES[error.code] ?? error.message;
}

/** `gen_ai.usage.*` of `usage`. */
export function usageAttributes(usage: Pick<TokenUsage, 'inputTokens' | 'outputTokens'>) {
  return {
    'gen_ai.usage.input_tokens': usage.inputTokens,
    'gen_ai.usage.output_tokens': usage.outputTokens,
  };
}

/** The `error.type` of something a provider threw: its `AgentError` code, else `PROVIDER_ERROR`. */
export function errorType(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code !== '' ? code : 'PROVIDER_ERROR';
}
