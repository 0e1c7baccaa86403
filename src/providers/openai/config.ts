/**
 * The plain-data configuration of an OpenAI-type provider: what `ProviderRegistry.registerWithConfig`
 * and `OpenAIProvider` both accept. It lives beside the provider so the registry depends on it and
 * the provider never depends on the registry.
 * @module
 */
import * as z from 'zod/mini';
import { ModelInfoSchema, type ModelInfo } from '../../vocabulary/model-info.js';
import type { MaxTokensField } from './to-wire.js';

/**
 * The kinds of provider {@link ProviderRegistry.registerWithConfig} can create: `openai` (the
 * OpenAI API; `max_completion_tokens`), `openai-compatible` (any Chat Completions server
 * such as Ollama, vLLM, LM Studio, OpenRouter or DeepSeek; `baseURL` required, `max_tokens`) and
 * `openai-responses` (`OpenAIResponsesProvider`: the Responses API, stateless; `maxTokensField`
 * does not apply).
 */
export type ProviderType = 'openai' | 'openai-compatible' | 'openai-responses';

/** Schema of {@link ProviderType}. */
export const ProviderTypeSchema = /* @__PURE__ */ (() =>
  z.enum(['openai', 'openai-compatible', 'openai-responses']))();

/** The data options of an OpenAI-type provider (what `registerWithConfig` takes). */
export interface OpenAIProviderConfig {
  /**
   * API key, sent as `Authorization: Bearer …`. Default: the `OPENAI_API_KEY` environment variable
   * (Node). Optional when `baseURL` is given: a local server that needs no key then gets no
   * `Authorization` header.
   */
  apiKey?: string;
  /** The server's base URL, e.g. `http://127.0.0.1:11434/v1`. Default: OpenAI's. */
  baseURL?: string;
  /**
   * The models this provider serves (ids unique across the registry). At least one. A plain id
   * (`'gpt-4.1-mini'`) stands for a model with conservative defaults (see {@link modelInfoOf}).
   */
  models: readonly (string | ModelInfo)[];
  /** Extra HTTP headers for every request (e.g. OpenRouter's `HTTP-Referer`). */
  headers?: Record<string, string>;
  /** Allow running in a browser, where the API key is visible to the page's users. */
  dangerouslyAllowBrowser?: boolean;
  /** Which field carries `maxOutputTokens`. Default: by provider type (see {@link ProviderType}). */
  maxTokensField?: MaxTokensField;
}

/** A URL that `new URL()` parses (zod's `z.url()` costs its hostname and format machinery). */
const HttpUrlSchema = /* @__PURE__ */ (() =>
  z.string().check(
    z.refine((url) => {
      try {
        return Boolean(new URL(url));
      } catch {
        return false;
      }
    }, 'Invalid URL'),
  ))();

/** Schema of {@link OpenAIProviderConfig} (unknown keys are rejected). */
export const OpenAIProviderConfigSchema = /* @__PURE__ */ (() =>
  z.strictObject({
    apiKey: z.optional(z.string()),
    baseURL: z.optional(HttpUrlSchema),
    models: z.array(z.union([z.string().check(z.minLength(1)), ModelInfoSchema])).check(z.minLength(1)),
    headers: z.optional(z.record(z.string(), z.string())),
    dangerouslyAllowBrowser: z.optional(z.boolean()),
    maxTokensField: z.optional(z.enum(['max_tokens', 'max_completion_tokens'])),
  }))();

/** `openai-compatible` needs to know where the server is. */
export const OpenAICompatibleConfigSchema = /* @__PURE__ */ (() =>
  z.extend(OpenAIProviderConfigSchema, { baseURL: HttpUrlSchema }))();

/**
 * The model a `models` entry stands for: a `ModelInfo` as it is; a plain id with conservative
 * defaults (the id as its name, a 128,000-token window, tools and streaming but no vision, no
 * pricing), because nothing more is known about it.
 * @example
 * modelInfoOf('gpt-4.1-mini').contextWindow; // 128_000
 */
export function modelInfoOf(entry: string | ModelInfo): ModelInfo {
  if (typeof entry !== 'string') return entry;
  return {
    id: entry,
    displayName: entry,
    contextWindow: 128_000,
    capabilities: { toolUse: true, vision: false, streaming: true },
  };
}
